// A host object with no device code.
int host_only(int x) { return x + 1; }
