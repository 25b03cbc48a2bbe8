/*
 * Prints next_value() as the first definition in the global scope answers,
 * and whether dlsym(RTLD_NEXT) finds the dynamic loader's own functions as
 * dlvsym does (the loader's handle answers none of them: interpose.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

static void loader_symbol(const char *name, const char *version)
{
	void *next = dlsym(RTLD_NEXT, name), *versioned = dlvsym(RTLD_NEXT, name, version);

	if (next && next == versioned)
		printf("%s: found\n", name);
	else
		printf("%s: dlsym %p, dlvsym %p\n", name, next, versioned);
}

int main(void)
{
	int (*f)(void) = (__extension__(int (*)(void))dlsym(RTLD_DEFAULT, "next_value"));

	printf("next_value: %d\n", f ? f() : -1);
	loader_symbol("_dl_get_tls_static_info", "GLIBC_PRIVATE");
	loader_symbol("__tls_get_addr", "GLIBC_2.3");
	return 0;
}
