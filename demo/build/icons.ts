/**
 * The demo's icon, drawn from one small geometry: an SVG for browsers that take one, and PNGs
 * (192 and 512 px, plus a maskable 512 px with the mark inside the safe zone) rasterised here at
 * build time, so no image files or image libraries are needed.
 */
import { deflateSync } from 'node:zlib';

/** The app's theme colour (also in public/manifest.webmanifest and index.html). */
export const THEME_COLOR = '#0f766e';
const BACKGROUND: Rgb = [0x0f, 0x76, 0x6e];
const MARK: Rgb = [0xff, 0xff, 0xff];
type Rgb = [number, number, number];

/** The mark in unit coordinates: a ring with a dot at its centre, on a rounded square. */
const RING = { outer: 0.3, inner: 0.205 };
const DOT = 0.085;
const CORNER = 0.22;

/** The icon as SVG; `maskable` fills the whole square and shrinks the mark into the safe zone. */
export function iconSvg(maskable = false): string {
  const scale = maskable ? 0.8 : 1;
  const r = (v: number) => (v * scale * 100).toFixed(2);
  const background = maskable ? `<rect width="100" height="100" fill="${THEME_COLOR}"/>` : `<rect width="100" height="100" rx="${CORNER * 100}" fill="${THEME_COLOR}"/>`;
  const ringWidth = RING.outer - RING.inner;
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">',
    background,
    `<circle cx="50" cy="50" r="${r(RING.inner + ringWidth / 2)}" fill="none" stroke="#fff" stroke-width="${r(ringWidth)}"/>`,
    `<circle cx="50" cy="50" r="${r(DOT)}" fill="#fff"/>`,
    '</svg>',
    '',
  ].join('\n');
}

/** The icon as a PNG of `size` × `size` pixels. */
export function iconPng(size: number, maskable = false): Uint8Array {
  const scale = maskable ? 0.8 : 1;
  const samples = 4; // 4 × 4 samples a pixel: smooth edges without an anti-aliasing library
  const rgba = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let background = 0;
      let mark = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const u = (x + (sx + 0.5) / samples) / size;
          const v = (y + (sy + 0.5) / samples) / size;
          if (maskable || insideRoundedSquare(u, v, CORNER)) background++;
          const d = Math.hypot(u - 0.5, v - 0.5) / scale;
          if ((d <= RING.outer && d >= RING.inner) || d <= DOT) mark++;
        }
      }
      const n = samples * samples;
      const markShare = mark / n;
      const alpha = background / n;
      const i = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round(BACKGROUND[c]! * (1 - markShare) + MARK[c]! * markShare);
      rgba[i + 3] = Math.round(255 * Math.max(alpha, markShare));
    }
  }
  return encodePng(size, size, rgba);
}

function insideRoundedSquare(u: number, v: number, radius: number): boolean {
  const dx = Math.max(radius - u, 0, u - (1 - radius));
  const dy = Math.max(radius - v, 0, v - (1 - radius));
  return dx * dx + dy * dy <= radius * radius;
}

/** A minimal PNG encoder: 8-bit RGBA, no filtering, one IDAT chunk. */
function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const raw = new Uint8Array(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter, no interlace
  return concat([
    Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a),
    chunk('IHDR', header),
    chunk('IDAT', new Uint8Array(deflateSync(raw, { level: 9 }))),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
