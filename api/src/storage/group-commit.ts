/**
 * Commits the writes of concurrent requests together: items submitted while a batch is being written wait and go
 * out together in the next one, so the cost of a durable commit (an fsync,
 * a round trip) is shared by every request in it. Each submitter gets its
 * own item's result once its batch has committed, or the batch's error.
 */
export class GroupCommit<Item, Result> {
  private queue: Array<{
    item: Item;
    resolve(result: Result): void;
    reject(error: unknown): void;
  }> = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * @param write - writes a batch in one transaction; returns one result per item, in order
   * @param options - `maxBatch` items at most per batch; `maxInFlight` batches at once
   */
  constructor(
    private readonly write: (items: Item[]) => Promise<Result[]>,
    private readonly options: { maxBatch: number; maxInFlight: number },
  ) {}

  /** Queues an item; resolves with its result after its batch committed. */
  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) {
      return;
    }
    this.scheduled = true;
    // Let every request of this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.options.maxBatch);
    this.inFlight += 1;
    this.write(batch.map((entry) => entry.item))
      .then(
        (results) => {
          for (const [index, entry] of batch.entries()) entry.resolve(results[index] as Result);
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    this.schedule();
  }
}
