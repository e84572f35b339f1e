// Diagnostics of row-pointer maps (issue 13.7), each at its place in the
// user's file: the table itself changed in the loop; a written row section
// shared by all iterations (the runtime cannot merge rows that iterations
// share); a row section without a length or that moves with the loop
// variable; a table the body uses in a way no map can be inferred from;
// and a pointer to pointers to pointers, which is no table of data rows.
//
// RUN: not %hce-translate %s -o %t.c -- -DTABLE_WRITE 2>&1 | FileCheck %s --check-prefix=TABLE_WRITE
// RUN: not %hce-translate %s -o %t.c -- -DSHARED 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not %hce-translate %s -o %t.c -- -DSHARED_READ 2>&1 | FileCheck %s --check-prefix=SHARED_READ
// RUN: not %hce-translate %s -o %t.c -- -DNO_LENGTH 2>&1 | FileCheck %s --check-prefix=NO_LENGTH
// RUN: not %hce-translate %s -o %t.c -- -DLOOP_COLUMN 2>&1 | FileCheck %s --check-prefix=LOOP_COLUMN
// RUN: not %hce-translate %s -o %t.c -- -DNO_INFER 2>&1 | FileCheck %s --check-prefix=NO_INFER
// RUN: not %hce-translate %s -o %t.c -- -DNO_INFER_BOUNDS 2>&1 | FileCheck %s --check-prefix=NO_INFER_BOUNDS
// RUN: not %hce-translate %s -o %t.c -- -DTRIPLE 2>&1 | FileCheck %s --check-prefix=TRIPLE

void f(float **rows, float *out, int m, int n) {
#ifdef TABLE_WRITE
#pragma hce co_exec map(tofrom: rows[i][0:n])
  for (int i = 0; i < m; i++)
// TABLE_WRITE: {{^}}{{.*}}diag-map-rows.c:[[@LINE+1]]:5: error: a row pointer of 'rows' is assigned in the loop: the rows of an array of row pointers can be written, not the table (each device has a table of its own)
    rows[i] = rows[(i + 1) % m];
#endif
#ifdef SHARED
// SHARED: {{^}}{{.*}}diag-map-rows.c:[[@LINE+3]]:33: error: the written map 'rows[0:m][0:n]' of an array of row pointers is shared by all iterations: give each iteration rows of its own, e.g. map(tofrom: rows[i][...]){{$}}
// SHARED: {{^}}{{.*}}diag-map-rows.c:[[@LINE+2]]:33: note: no rows of their own can be derived from the loop: the loop variable 'i' selects the column, not the row
// SHARED-NOT: {{[0-9]+}}: error:
#pragma hce co_exec map(tofrom: rows[0:m][0:n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      rows[j][i] += 1;
#endif
#ifdef SHARED_READ
// SHARED_READ: {{^}}{{.*}}diag-map-rows.c:[[@LINE+1]]:31: error: the written map 'rows[0:m][0:n]' of an array of row pointers is shared by all iterations: give each iteration rows of its own, e.g. map(from: rows[i][...]), or map it 'to' if the loop only reads it
#pragma hce co_exec map(from: rows[0:m][0:n]) map(from: out[i:1])
  for (int i = 0; i < m; i++)
    out[i] = rows[(i * 7) % m][0];
#endif
#ifdef NO_LENGTH
// NO_LENGTH: {{^}}{{.*}}diag-map-rows.c:[[@LINE+1]]:40: error: the length of the rows of 'rows' is not known: give the elements of each row as [start:length], e.g. rows[i][0:n]
#pragma hce co_exec map(tofrom: rows[i][2:])
  for (int i = 0; i < m; i++)
    rows[i][2] = 0;
#endif
#ifdef LOOP_COLUMN
// LOOP_COLUMN: {{^}}{{.*}}diag-map-rows.c:[[@LINE+1]]:38: error: the elements of each row of 'rows' must be the same for every iteration: they cannot use the loop variable 'i' (the rows can, e.g. rows[i][0:n])
#pragma hce co_exec map(to: rows[0:m][i:1]) map(from: out[i:1])
  for (int i = 0; i < n; i++)
    out[i] = rows[0][i];
#endif
#ifdef NO_INFER
#pragma hce co_exec map(from: out[i:1])
  for (int i = 0; i < m; i++) {
// NO_INFER: {{^}}{{.*}}diag-map-rows.c:[[@LINE+2]]:16: error: 'rows' is used in the co_exec loop but not mapped; add it to a map clause, e.g. map(tofrom: rows[i][0:n])
// NO_INFER: {{^}}{{.*}}diag-map-rows.c:[[@LINE+1]]:16: note: no map can be inferred for 'rows' (an array of row pointers): 'rows' is used with 1 subscript, not as rows[r][c]
    float *r = rows[i];
    out[i] = r[0] + r[1];
  }
#endif
#ifdef NO_INFER_BOUNDS
#pragma hce co_exec map(from: out[i:1])
  for (int i = 0; i < m; i++) {
    float s = 0;
    for (int j = 0; j < i; j++)
// NO_INFER_BOUNDS: {{^}}{{.*}}diag-map-rows.c:[[@LINE+2]]:12: error: 'rows' is used in the co_exec loop but not mapped; add it to a map clause, e.g. map(tofrom: rows[i][0:n])
// NO_INFER_BOUNDS: note: no map can be inferred for 'rows' (an array of row pointers): the bounds of the inner loop of 'j' are not known before the loop
      s += rows[i][j];
    out[i] = s;
  }
#endif
}

#ifdef TRIPLE
void g(float ***cube, int m) {
// TRIPLE: {{^}}{{.*}}diag-map-rows.c:[[@LINE+1]]:33: error: cannot map 'cube' of type 'float ***': only arrays of data can be mapped (not of pointers, void or functions); allocate one contiguous array and map sections of it
#pragma hce co_exec map(tofrom: cube[i][0:4])
  for (int i = 0; i < m; i++)
    cube[i][0][0] = 1;
}
#endif
