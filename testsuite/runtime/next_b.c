/* The definition next_a.c wraps. */
int next_value(void);

__attribute__((visibility("default"))) int next_value(void)
{
	return 10;
}
