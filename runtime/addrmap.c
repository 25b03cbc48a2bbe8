/* The address map of addrmap.h. */
#include <stdlib.h>

#include "addrmap.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int grow(struct coloc_addrmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 1024;
	struct coloc_addrmap_slot *old = m->slots, *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!old[i].key || old[i].dead)
			continue;
		for (j = slot_of(old[i].key, cap); slots[j].key; j = (j + 1) & (cap - 1))
			;
		slots[j] = old[i];
	}
	m->used = 0;
	for (size_t i = 0; i < cap; i++)
		m->used += slots[i].key != 0;
	free(old);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

int coloc_addrmap_put(struct coloc_addrmap *m, uint64_t key, uint64_t value)
{
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&m->lock);
	if ((m->used + 1) * 2 > m->cap && grow(m) < 0) {
		rc = -1;
	} else {
		for (i = slot_of(key, m->cap); m->slots[i].key && !m->slots[i].dead;
		     i = (i + 1) & (m->cap - 1))
			;
		m->used += !m->slots[i].key;
		m->slots[i].key = key;
		m->slots[i].value = value;
		m->slots[i].dead = false;
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

/* The live slot of `key`, or NULL; under the lock. */
static struct coloc_addrmap_slot *find(struct coloc_addrmap *m, uint64_t key)
{
	for (size_t i = m->cap ? slot_of(key, m->cap) : 0; m->cap && m->slots[i].key;
	     i = (i + 1) & (m->cap - 1))
		if (m->slots[i].key == key && !m->slots[i].dead)
			return &m->slots[i];
	return NULL;
}

bool coloc_addrmap_take(struct coloc_addrmap *m, uint64_t key, uint64_t *value)
{
	struct coloc_addrmap_slot *s;

	pthread_mutex_lock(&m->lock);
	if ((s = find(m, key))) {
		*value = s->value;
		s->dead = true;
	}
	pthread_mutex_unlock(&m->lock);
	return s != NULL;
}

bool coloc_addrmap_get(struct coloc_addrmap *m, uint64_t key, uint64_t *value)
{
	struct coloc_addrmap_slot *s;

	pthread_mutex_lock(&m->lock);
	if ((s = find(m, key)))
		*value = s->value;
	pthread_mutex_unlock(&m->lock);
	return s != NULL;
}

void coloc_addrmap_reset(struct coloc_addrmap *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->slots = NULL; /* the parent's; leaked in the child rather than freed under its lock */
	m->cap = m->used = 0;
}
