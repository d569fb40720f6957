/**
 * A minimal ONNX writer: just the protobuf messages the static embedding model needs, encoded by
 * hand so that building the model depends on nothing outside npm. Build-time only; nothing in
 * `src/` imports it. Field numbers follow onnx/onnx.proto (IR version 8).
 */

/** ONNX TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, DOUBLE: 11 } as const;
export type DataTypeValue = (typeof DataType)[keyof typeof DataType];

/** Tensor data either inline or in a file next to the model (ONNX "external data"). */
export type TensorData =
  | { kind: 'raw'; bytes: Uint8Array }
  | { kind: 'int64'; values: readonly bigint[] }
  | { kind: 'float'; values: readonly number[] }
  | { kind: 'double'; values: readonly number[] }
  | { kind: 'external'; location: string; offset: number; length: number };

/** An initializer or constant tensor. */
export interface Tensor {
  name: string;
  dataType: DataTypeValue;
  dims: readonly number[];
  data: TensorData;
  docString?: string;
}

/** One attribute of a node; only the kinds the model uses. */
export type Attribute =
  | { name: string; kind: 'int'; value: number }
  | { name: string; kind: 'float'; value: number }
  | { name: string; kind: 'ints'; value: readonly number[] }
  | { name: string; kind: 'string'; value: string };

/** A graph node. */
export interface Node {
  opType: string;
  name: string;
  inputs: readonly string[];
  outputs: readonly string[];
  attributes?: readonly Attribute[];
  domain?: string;
}

/** A graph input or output: a tensor with element type and a shape of fixed sizes or named dims. */
export interface ValueInfo {
  name: string;
  elemType: DataTypeValue;
  shape: readonly (number | string)[];
  docString?: string;
}

/** The whole model. */
export interface Model {
  irVersion: number;
  opsetVersion: number;
  producerName: string;
  producerVersion: string;
  domain: string;
  modelVersion: number;
  docString: string;
  metadata: Readonly<Record<string, string>>;
  graph: {
    name: string;
    docString?: string;
    nodes: readonly Node[];
    initializers: readonly Tensor[];
    inputs: readonly ValueInfo[];
    outputs: readonly ValueInfo[];
  };
}

// ---------------------------------------------------------------------------------------------
// Protobuf wire format: varint (0), 64-bit (1), length-delimited (2), 32-bit (5).

const textEncoder = new TextEncoder();

/** Accumulates one protobuf message. */
class Writer {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  private push(bytes: Uint8Array): void {
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  private varint(value: bigint): void {
    // Negative int64 values are written as their 64-bit two's complement (10 bytes), as protobuf does.
    let v = BigInt.asUintN(64, value);
    const out: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.push(Uint8Array.from(out));
  }

  private key(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  int(field: number, value: number | bigint): this {
    this.key(field, 0);
    this.varint(BigInt(value));
    return this;
  }

  float(field: number, value: number): this {
    this.key(field, 5);
    const bytes = new Uint8Array(4);
    new DataView(bytes.buffer).setFloat32(0, value, true);
    this.push(bytes);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.key(field, 2);
    this.varint(BigInt(value.length));
    this.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, textEncoder.encode(value));
  }

  message(field: number, value: Writer): this {
    return this.bytes(field, value.finish());
  }

  /** Packed repeated int64 (proto3 default for repeated scalars; onnx.proto2 readers accept both). */
  packedInts(field: number, values: readonly (number | bigint)[]): this {
    const inner = new Writer();
    for (const v of values) inner.varint(BigInt(v));
    return this.bytes(field, inner.finish());
  }

  packedFloats(field: number, values: readonly number[]): this {
    const bytes = new Uint8Array(values.length * 4);
    const view = new DataView(bytes.buffer);
    values.forEach((v, i) => view.setFloat32(i * 4, v, true));
    return this.bytes(field, bytes);
  }

  packedDoubles(field: number, values: readonly number[]): this {
    const bytes = new Uint8Array(values.length * 8);
    const view = new DataView(bytes.buffer);
    values.forEach((v, i) => view.setFloat64(i * 8, v, true));
    return this.bytes(field, bytes);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.length;
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// ONNX messages.

function stringEntry(key: string, value: string): Writer {
  return new Writer().string(1, key).string(2, value);
}

function tensorProto(t: Tensor): Writer {
  const w = new Writer();
  // onnx.proto declares dims without [packed]; writing them unpacked is what every reader expects.
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.dataType);
  switch (t.data.kind) {
    case 'float':
      w.packedFloats(4, t.data.values);
      break;
    case 'int64':
      w.packedInts(7, t.data.values);
      break;
    case 'double':
      w.packedDoubles(10, t.data.values);
      break;
    case 'raw':
      break;
    case 'external':
      break;
  }
  w.string(8, t.name);
  if (t.data.kind === 'raw') w.bytes(9, t.data.bytes);
  if (t.docString !== undefined) w.string(12, t.docString);
  if (t.data.kind === 'external') {
    w.message(13, stringEntry('location', t.data.location));
    w.message(13, stringEntry('offset', String(t.data.offset)));
    w.message(13, stringEntry('length', String(t.data.length)));
    w.int(14, 1); // DataLocation.EXTERNAL
  }
  return w;
}

// AttributeProto.AttributeType
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_INTS = 7;

function attributeProto(a: Attribute): Writer {
  const w = new Writer().string(1, a.name);
  switch (a.kind) {
    case 'float':
      return w.float(2, a.value).int(20, ATTR_FLOAT);
    case 'int':
      return w.int(3, a.value).int(20, ATTR_INT);
    case 'string':
      return w.string(4, a.value).int(20, ATTR_STRING);
    case 'ints':
      for (const v of a.value) w.int(8, v);
      return w.int(20, ATTR_INTS);
  }
}

function nodeProto(n: Node): Writer {
  const w = new Writer();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name).string(4, n.opType);
  for (const a of n.attributes ?? []) w.message(5, attributeProto(a));
  if (n.domain !== undefined) w.string(7, n.domain);
  return w;
}

function valueInfoProto(v: ValueInfo): Writer {
  const shape = new Writer();
  for (const d of v.shape) shape.message(1, typeof d === 'number' ? new Writer().int(1, d) : new Writer().string(2, d));
  const tensorType = new Writer().int(1, v.elemType).message(2, shape);
  const type = new Writer().message(1, tensorType);
  const w = new Writer().string(1, v.name).message(2, type);
  if (v.docString !== undefined) w.string(3, v.docString);
  return w;
}

/** Serialises a model to the bytes of an .onnx file. */
export function encodeModel(model: Model): Uint8Array {
  const g = model.graph;
  const graph = new Writer();
  for (const n of g.nodes) graph.message(1, nodeProto(n));
  graph.string(2, g.name);
  for (const t of g.initializers) graph.message(5, tensorProto(t));
  if (g.docString !== undefined) graph.string(10, g.docString);
  for (const i of g.inputs) graph.message(11, valueInfoProto(i));
  for (const o of g.outputs) graph.message(12, valueInfoProto(o));

  const w = new Writer()
    .int(1, model.irVersion)
    .string(2, model.producerName)
    .string(3, model.producerVersion)
    .string(4, model.domain)
    .int(5, model.modelVersion)
    .string(6, model.docString)
    .message(7, graph)
    .message(8, new Writer().string(1, '').int(2, model.opsetVersion));
  for (const key of Object.keys(model.metadata).sort()) w.message(14, stringEntry(key, model.metadata[key] ?? ''));
  return w.finish();
}
