/*
 * A map from device addresses (or handles) to 64-bit values: open
 * addressing, its own lock.  The memory hooks keep their live allocations
 * in it; keys are never 0.
 */
#ifndef COLOC_ADDRMAP_H
#define COLOC_ADDRMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct coloc_addrmap {
	pthread_mutex_t lock;
	struct coloc_addrmap_slot {
		uint64_t key; /* 0: empty */
		uint64_t value;
		bool dead;    /* removed: probing goes on past it */
	} *slots;
	size_t cap, used; /* used counts dead slots too */
};

#define COLOC_ADDRMAP_INIT { .lock = PTHREAD_MUTEX_INITIALIZER }

/* Remembers `key`; -1 when out of memory (then it is not remembered). */
int coloc_addrmap_put(struct coloc_addrmap *m, uint64_t key, uint64_t value);
/* Forgets `key`: true and its value in *value when it was there. */
bool coloc_addrmap_take(struct coloc_addrmap *m, uint64_t key, uint64_t *value);
/* Its value, without forgetting it. */
bool coloc_addrmap_get(struct coloc_addrmap *m, uint64_t key, uint64_t *value);
/* Forgets everything (after fork, in the child). */
void coloc_addrmap_reset(struct coloc_addrmap *m);

#endif
