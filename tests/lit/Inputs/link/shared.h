void add_one(int n, float *x);
