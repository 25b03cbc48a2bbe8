/* Prints next_value() as the first definition in the global scope answers. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	int (*f)(void) = (__extension__(int (*)(void))dlsym(RTLD_DEFAULT, "next_value"));

	printf("next_value: %d\n", f ? f() : -1);
	return 0;
}
