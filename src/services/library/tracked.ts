// A promise whose outcome can be read synchronously: whether the library or the question model is ready right now
// decides, without waiting, whether a question first gets its lexical evidence.

export interface Tracked<T> {
  promise: Promise<T>;
  value?: T;
  done: boolean;
}

export function track<T>(promise: Promise<T>): Tracked<T> {
  const t: Tracked<T> = { promise, done: false };
  promise.then(
    (value) => Object.assign(t, { value, done: true }),
    () => undefined,
  );
  return t;
}
