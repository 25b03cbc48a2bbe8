// CHECK(call): a CUDA runtime call that must succeed, else the program says
// where and why and exits 1.  Shared by the runtime's GPU check programs.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                       \
	do {                                                                           \
		cudaError_t e_ = (x);                                                  \
		if (e_ != cudaSuccess) {                                               \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,     \
				cudaGetErrorString(e_));                               \
			exit(1);                                                       \
		}                                                                      \
	} while (0)
