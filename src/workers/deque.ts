/** A ring buffer: O(1) push, shift and pop at any size (Array#shift copies). */
export class Deque<T> {
  private items: (T | undefined)[] = new Array(8);
  private head = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) % this.items.length] = item;
    this.size++;
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.items.length;
    this.size--;
    return item;
  }

  pop(): T | undefined {
    if (this.size === 0) return undefined;
    const at = (this.head + this.size - 1) % this.items.length;
    const item = this.items[at];
    this.items[at] = undefined;
    this.size--;
    return item;
  }

  remove(item: T): boolean {
    for (let i = 0; i < this.size; i++) {
      const at = (this.head + i) % this.items.length;
      if (this.items[at] !== item) continue;
      for (let j = i; j < this.size - 1; j++) this.items[(this.head + j) % this.items.length] = this.items[(this.head + j + 1) % this.items.length];
      this.items[(this.head + this.size - 1) % this.items.length] = undefined;
      this.size--;
      return true;
    }
    return false;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.items.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = this.items[(this.head + i) % this.items.length];
    this.items = next;
    this.head = 0;
  }
}
