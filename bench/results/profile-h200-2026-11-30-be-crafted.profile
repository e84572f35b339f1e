hce-profile 1
# crafted for call BE (session 38): blackscholes GPU alone measured once slow (46 ms), co-execution once at 36.5 ms, as call BC's fresh-machine fill left it
blackscholes	=alone:cpu@Intel(R) Xeon(R) Processor/16t	16777216	0	0.0755	0	1
blackscholes	=alone:cuda:0@NVIDIA H200/132sm	16777216	0	0.046	0	1
blackscholes	=co:cpu@Intel(R) Xeon(R) Processor/16t+cuda:0@NVIDIA H200/132sm	16777216	0	0.0365	0	1
blackscholes	=model:cpu@Intel(R) Xeon(R) Processor/16t+cuda:0@NVIDIA H200/132sm/cpu@Intel(R) Xeon(R) Processor/16t	4194304	0	0.02025	0	1
blackscholes	=model:cpu@Intel(R) Xeon(R) Processor/16t+cuda:0@NVIDIA H200/132sm/cpu@Intel(R) Xeon(R) Processor/16t	16777216	0	0.081	0	1
blackscholes	=model:cpu@Intel(R) Xeon(R) Processor/16t+cuda:0@NVIDIA H200/132sm/cuda:0@NVIDIA H200/132sm	4194304	0	0.0075	0	1
blackscholes	=model:cpu@Intel(R) Xeon(R) Processor/16t+cuda:0@NVIDIA H200/132sm/cuda:0@NVIDIA H200/132sm	16777216	0	0.030	0	1
