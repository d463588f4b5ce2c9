// The shape a value takes after a JSON round trip (the API's response as the console sees it): dates become
// ISO strings, everything else keeps its shape (tuples stay tuples). Console view types derive from core's
// types with it, so the two cannot drift apart.
export type Jsonify<T> = T extends Date ? string : T extends object ? { -readonly [K in keyof T]: Jsonify<T[K]> } : T;
