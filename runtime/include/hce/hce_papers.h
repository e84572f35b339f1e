/* The hand-written API of the HCE paper (Table 1 and Fig. 9 of
 * "HCE: a runtime system for cooperative execution"), so that its matrix
 * addition program can be written by hand against libhce.
 *
 * Differences from the paper, where its text is ambiguous or C++-only:
 *  - strings are `const char *`; device types are "CPU" and "GPU" (a "GPU"
 *    is cuda:N when there is one, else the simulated accelerator sim:N);
 *  - lengths are in bytes for hce_malloc_gpu, and the copy functions move
 *    elements of `double` (the paper's arrays), rows [begin, end] of
 *    `stride` elements each (stride 1: single elements), inclusive as in
 *    Fig. 9;
 *  - a device's kernel is given with hce_set_compute_kernel (Fig. 9 stores
 *    it in its own struct), the loop bounds with hce_set_loop_bounds;
 *  - functions return 0 on success and print the cause otherwise;
 *  - the *_mic functions of the paper have no counterpart (no Xeon Phi).
 */
#ifndef HCE_HCE_PAPERS_H
#define HCE_HCE_PAPERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A device kernel: runs iterations [subLoopBegin, subLoopEnd] (inclusive). */
typedef void (*hce_compute_kernel)(int deviceNum, int subLoopBegin, int subLoopEnd);

/* -- task scheduling -- */
/* Runs the loop set by hce_set_loop_bounds on every initialised device with
 * the named scheduler ("FDETS", "ADETS", "static", ...; case-insensitive). */
int hce_co_schedule(const char *schedType, int initialChunkSize);
int hce_set_ratio(const char *deviceType, int deviceNum, float partitionRatio);
int hce_set_loop_bounds(int loopBegin, int loopEnd);

/* -- device management -- */
int hce_init_compute_device(int deviceUDI, const char *deviceType, int deviceNum);
int hce_set_compute_kernel(int deviceUDI, hce_compute_kernel kernel);
/* -1 when no such device was initialised. */
int hce_get_device_udi(const char *deviceType, int deviceNum);
/* Devices of that type available to the process (HCE_DEVICES). */
int hce_get_num_devices(const char *deviceType);

/* -- memory management -- */
int hce_malloc_gpu(int deviceNum, void **devPtr, size_t bytes);
int hce_free_gpu(int deviceNum, void *devPtr);
int hce_memcpy_to_gpu(int deviceNum, void *devPtr, const void *hostPtr,
                      int begin, int end, int stride);
int hce_memcpy_from_gpu(int deviceNum, void *hostPtr, const void *devPtr,
                        int begin, int end, int stride);
/* The asynchronous forms take the stream as `void *` (cudaStream_t); on
 * devices without streams they complete before returning. */
int hce_memcpy_to_gpu_async(int deviceNum, void *devPtr, const void *hostPtr,
                            int begin, int end, int stride, void *stream);
int hce_memcpy_from_gpu_async(int deviceNum, void *hostPtr, const void *devPtr,
                              int begin, int end, int stride, void *stream);

/* -- transfer optimisation (Algorithms 1 and 2 of the paper) -- */
/* Up to two inclusive index ranges; begin = end = -1 when unused. */
struct hce_array_section {
  int begin1, end1, begin2, end2;
};
/* Which iterations device `deviceUDI` (1-based position in the ratio
 * arrays) must upload when its share moves from previousPartitionRatios to
 * currentPartitionRatios of the loop [loopBegin, loopEnd]. */
struct hce_array_section hce_get_array_section_upload(
    int numOfDevices, int deviceUDI, int loopBegin, int loopEnd,
    const float *previousPartitionRatios, const float *currentPartitionRatios);
/* Which iterations it must download when its share moves from current to
 * next. */
struct hce_array_section hce_get_array_section_download(
    int numOfDevices, int deviceUDI, int loopBegin, int loopEnd,
    const float *currentPartitionRatios, const float *nextPartitionRatios);

#ifdef __cplusplus
}
#endif

#endif /* HCE_HCE_PAPERS_H */
