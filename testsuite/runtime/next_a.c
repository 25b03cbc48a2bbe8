/*
 * An interposer loaded after libcoloc: it wraps next_value() and finds the
 * wrapped one with dlsym(RTLD_NEXT).  Were libcoloc to forward RTLD_NEXT as
 * its own, this would find itself again and recurse until the stack ends.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

int next_value(void);

__attribute__((visibility("default"))) int next_value(void)
{
	int (*next)(void) = (__extension__(int (*)(void))dlsym(RTLD_NEXT, "next_value"));

	return next ? 1 + next() : -1000;
}
