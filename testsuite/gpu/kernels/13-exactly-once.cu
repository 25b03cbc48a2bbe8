// Exactly-once kernels: every block increments its own counter once.  The
// harness runs the transformed forms under a storm of preemptions and
// resumes and then requires every counter to be exactly 1 (a block skipped
// or run twice shows at once).  The bodies are trivial on purpose, so that
// blocks are short and the storm hits many block boundaries.  About 100000
// blocks each; these are the only cases above the 4096-block limit.  The
// counters are the kernels' only buffer.

// No barrier in the body: in the persistent form the id broadcast through
// shared memory is the only synchronization (the race Tally's one-slot
// broadcast had shows up here).
extern "C" __global__ void count_blocks(unsigned *counts)
{
    if (threadIdx.x == 0)
        atomicAdd(&counts[blockIdx.x], 1u);
}
// CASE: name=count_blocks_100000 kernel=count_blocks grid=100000 block=32 flags=exactly-once
// PARAM: buf u32 100000 zero

// A 2-D grid, a barrier, and early returns: the upper quarter of the
// threads return before the barrier; one thread publishes the block's index
// in shared memory before the barrier and thread 0 counts the block read back
// from there after it, so a block whose threads disagree on which block
// they run shows up as a wrong count.
extern "C" __global__ void count_blocks_sync(unsigned *counts)
{
    __shared__ unsigned who;
    unsigned lin = blockIdx.x + gridDim.x * blockIdx.y;
    unsigned t = threadIdx.x;

    if (t >= blockDim.x - blockDim.x / 4)
        return;
    if (t == 5)
        who = lin;
    __syncthreads();
    if (t == 0)
        atomicAdd(&counts[who], 1u);
}
// CASE: name=count_blocks_sync_400x250 kernel=count_blocks_sync grid=400,250 block=64 flags=exactly-once
// PARAM: buf u32 100000 zero

// A 3-D grid, no barrier; the last thread of each block counts it.
extern "C" __global__ void count_blocks_3d(unsigned *counts)
{
    unsigned lin = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (threadIdx.x == blockDim.x - 1)
        atomicAdd(&counts[lin], 1u);
}
// CASE: name=count_blocks_3d_50x40x50 kernel=count_blocks_3d grid=50,40,50 block=128 flags=exactly-once
// PARAM: buf u32 100000 zero
