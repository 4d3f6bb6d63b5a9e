long kern_sum(const int* values, int count);
