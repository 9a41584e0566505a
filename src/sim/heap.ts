/** A binary min-heap of items ordered by a numeric key read from the item. */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly key: (item: T) => number) {}

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    let i = a.push(item) - 1;
    const k = this.key(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.key(a[parent]) <= k) break;
      a[i] = a[parent];
      i = parent;
    }
    a[i] = item;
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    const k = this.key(last);
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= a.length) break;
      if (child + 1 < a.length && this.key(a[child + 1]) < this.key(a[child])) child++;
      if (this.key(a[child]) >= k) break;
      a[i] = a[child];
      i = child;
    }
    a[i] = last;
    return top;
  }
}
