"""PyTorch training that gives device memory back when colocc asks.

MicroBatchTrainer runs each batch as micro-batches with gradient
accumulation, inside one unit of the discard protocol (discard.py).  When a
request comes during the compute phase, it throws the micro-batch under way
away and replays it at half the size; after grow_after undisturbed batches it
doubles the size again, up to the one it was given, when the GPU has room.

What a discard does, exactly:

- Where it is noticed: before each micro-batch, at every module's forward
  (a forward pre-hook), between forward and backward, and at every
  parameter's gradient during backward (a tensor hook).  A request that
  comes after the last gradient is handled before the next micro-batch, so
  finished work is kept.  Never in the optimizer step nor in sync_grads: the
  protocol does not show requests in those phases.
- What is dropped: everything the micro-batch would still launch, and its
  results.  Kernels already queued on the GPU are not recalled (CUDA cannot
  take them back); they run to their end, into memory nobody reads.
  torch.cuda.empty_cache() then waits for them (cudaFree synchronizes) and
  hands the cached memory back to the driver, which colocc counts; the
  acknowledgement says how much that was.
- What is restored: the gradients (a micro-batch writes p.grad, which is
  added to a separate accumulator only when it completes, so a discarded one
  leaves nothing behind), the running statistics of every batch-norm layer
  (copied before each micro-batch), and the CPU and CUDA random generators
  (the replay draws the same dropout masks when it has the same size).
- What is not: any other state a forward changes (a module's own counters,
  side effects in Python).  The data loader is not involved: the trainer
  holds the whole batch and replays the discarded samples itself, so every
  sample of a batch counts exactly once.

Equivalence.  loss_fn(model, inputs, targets) returns the mean loss of a
micro-batch; the trainer scales it by (micro-batch size / batch size), so the
accumulated gradient is that of the batch's mean loss however the batch is
split.  The arithmetic is not the same for every split: sums are taken in
another order, and a batch-norm layer in training mode normalizes each
micro-batch with that micro-batch's statistics, as in any gradient
accumulation.  Two runs that split their batches the same way compute the
same thing: a run with discards gives, bit for bit, the parameters of a run
without them that is told the same sizes (step's `sizes`, from last_sizes),
and a discard replayed at the same size (shrink=False) changes nothing.

Data parallelism: pass sync_grads=allreduce_mean(); do not wrap the model in
DistributedDataParallel, whose all-reduce runs inside the last micro-batch's
backward, where a discard on one rank would leave the collective issued on
the others only.  sync_grads runs once the batch's micro-batches are done, in
phase collective, where no discard comes.
"""
import warnings

from .discard import ColocError, Discard


class Discarded(Exception):
    """Raised inside a micro-batch to abandon it."""


def allreduce_mean(group=None):
    """A sync_grads that averages the accumulated gradients over the ranks of `group`."""
    def sync(grads):
        import torch.distributed as dist
        world = dist.get_world_size(group)
        for g in grads:
            dist.all_reduce(g, group=group)
            g.div_(world)
    return sync


class MicroBatchTrainer:
    """step(inputs, targets): one optimizer step over the batch, in micro-batches.

    model, optimizer: as for any PyTorch loop.  loss_fn(model, x, y): the
    micro-batch's mean loss.  micro_batch: the size to run at (and to grow
    back to).  coloc: a Discard; by default one is made, and when this
    process cannot take part (not under colocc, not best-effort) the trainer
    warns and runs without discards.  shrink: replay at half the size (False:
    at the same size).  min_micro_batch: the smallest size.  grow_after:
    undisturbed batches before the size doubles.  sync_grads(grads): called
    with the accumulated gradients before the optimizer step.
    check_modules: the hooks that notice a request inside forward and
    backward (without them: only before each micro-batch and after forward).
    """

    def __init__(self, model, optimizer, loss_fn, micro_batch, *, coloc=None, shrink=True,
                 min_micro_batch=1, grow_after=4, sync_grads=None, check_modules=True):
        import torch  # only here: the binding needs the standard library alone
        self.torch = torch
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.micro = self.max_micro = int(micro_batch)
        self.min_micro = max(1, int(min_micro_batch))
        self.shrink, self.grow_after, self.sync_grads = shrink, grow_after, sync_grads
        if coloc is None:
            try:
                coloc = Discard()
                coloc.pending()  # the first call says whether this process can take part
            except ColocError as e:
                warnings.warn(f"colocc's discard protocol is not available ({e}); "
                              "training runs without discards")
                coloc = None
        self.coloc = coloc
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.batchnorms = [m for m in model.modules()
                           if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
        self._hooks = []
        if coloc is not None and check_modules:
            self._hooks += [m.register_forward_pre_hook(self._check_hook) for m in model.modules()]
            self._hooks += [p.register_hook(self._check_hook) for p in self.params]
        self._acc = None
        self._aborting = False
        self._act_per_sample = 0.0
        self.unit = 0
        self.calm = 0           # batches in a row without a request
        self.discards = 0       # micro-batches thrown away
        self.acks = 0           # requests acknowledged
        self.last_sizes = []    # the micro-batch sizes the last step kept, in order

    def close(self):
        """Removes the hooks."""
        for h in self._hooks:
            h.remove()
        self._hooks = []

    def _check(self):
        if self.coloc is not None and self.coloc.pending() is not None:
            self._aborting = True
            raise Discarded()

    def _check_hook(self, *_):
        self._check()  # returns None: the module's inputs, or the gradient, stay as they are

    def _set_phase(self, name):
        if self.coloc is not None:
            self.coloc.set_phase(name)

    def _save(self):
        torch = self.torch
        buffers = [b for m in self.batchnorms
                   for b in (m.running_mean, m.running_var, m.num_batches_tracked) if b is not None]
        return (torch.get_rng_state(),
                torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None,
                [(b, b.clone()) for b in buffers])

    def _restore(self, saved):
        torch = self.torch
        cpu, cuda, buffers = saved
        for p in self.params:
            p.grad = None
        with torch.no_grad():
            for b, copy in buffers:
                b.copy_(copy)
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)

    def _micro(self, x, y, scale):
        """Runs one micro-batch into the accumulator: its scaled loss, or None when discarded."""
        torch = self.torch
        saved = self._save()
        cuda = torch.cuda.is_initialized()
        self._aborting = False
        try:
            before = torch.cuda.memory_allocated() if cuda else 0
            loss = self.loss_fn(self.model, x, y) * scale
            activations = torch.cuda.memory_allocated() - before if cuda else 0
            self._check()
            loss.backward()
        except Exception:
            # Autograd may hand a hook's exception on as another type: the flag tells.
            if not self._aborting:
                for p in self.params:
                    p.grad = None
                raise
            self._restore(saved)
            return None  # the micro-batch's tensors go with this frame
        self._act_per_sample = max(activations, 0) / len(x)
        with torch.no_grad():
            for p, acc in zip(self.params, self._acc):
                if p.grad is not None:
                    acc.add_(p.grad)
                    p.grad = None
        return loss.detach()

    def _give_back(self, size):
        """After a request: hands the cache back, acknowledges, and shrinks."""
        torch = self.torch
        freed = 0
        if torch.cuda.is_initialized():
            before = torch.cuda.memory_reserved()
            torch.cuda.empty_cache()
            freed = before - torch.cuda.memory_reserved()
        if self.coloc.ack(freed):
            self.acks += 1
        if self.shrink:
            self.micro = max(self.min_micro, min(self.micro, size) // 2)

    def _room_to_grow(self):
        torch = self.torch
        if not torch.cuda.is_initialized():
            return True
        free, _ = torch.cuda.mem_get_info()  # under colocc: what this tenant may still allocate
        cached = torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        return free + cached >= self._act_per_sample * self.micro

    def step(self, inputs, targets, sizes=None):
        """One optimizer step over the batch; the batch's mean loss (a tensor).

        sizes: the micro-batch sizes to run, in order (they must add up to
        the batch), instead of the trainer's own; a discard still splits the
        micro-batch it hits."""
        torch = self.torch
        n = len(inputs)
        plan = list(sizes) if sizes is not None else None
        if plan is not None and sum(plan) != n:
            raise ValueError(f"sizes add up to {sum(plan)}, the batch has {n}")
        if self._acc is None:
            self._acc = [torch.zeros_like(p) for p in self.params]
        else:
            for acc in self._acc:
                acc.zero_()
        self.unit += 1
        self.last_sizes = []
        disturbed = False
        total = None
        if self.coloc is not None:
            self.coloc.begin(self.unit)
        try:
            start = 0
            while start < n:
                m = plan.pop(0) if plan else min(self.micro, n - start)
                if self.coloc is not None and self.coloc.pending() is not None:
                    # Nothing of this micro-batch exists yet: nothing to throw away.
                    disturbed = True
                    self._give_back(m)
                    if plan is not None:
                        plan.insert(0, m)
                    continue
                loss = self._micro(inputs[start:start + m], targets[start:start + m], m / n)
                if loss is None:
                    self.discards += 1
                    disturbed = True
                    self._give_back(m)
                    if plan is not None:
                        plan[0:0] = [m // 2, m - m // 2] if self.shrink and m > 1 else [m]
                    continue
                total = loss if total is None else total + loss
                self.last_sizes.append(m)
                start += m
            # Straight from one phase to the next: no compute phase between them.
            if self.sync_grads is not None:
                self._set_phase("collective")
                self.sync_grads(self._acc)
            self._set_phase("optimizer")
            for p, acc in zip(self.params, self._acc):
                p.grad = acc
            self.optimizer.step()
            for p in self.params:
                p.grad = None
        finally:
            if self.coloc is not None:
                self.coloc.end()
        self.calm = 0 if disturbed else self.calm + 1
        if self.calm >= self.grow_after and self.micro < self.max_micro and self._room_to_grow():
            self.micro = min(self.max_micro, self.micro * 2)
            self.calm = 0
        return total
