// Draws the app icons (a five-petal flower on the brand colour) into client/public/icons as PNG,
// with a tiny PNG encoder, so no image tool is needed. Run: node client/tools/make-icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'public', 'icons');
fs.mkdirSync(out, { recursive: true });

const CRC = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
const crc32 = (buf) => {
  let c = -1;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
};
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size, pixel) {
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel((x + 0.5) / size, (y + 0.5) / size);
      const o = y * (size * 4 + 1) + 1 + x * 4;
      raw[o] = r; raw[o + 1] = g; raw[o + 2] = b; raw[o + 3] = a;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const BRAND = [122, 62, 157, 255];
const PETAL = [255, 255, 255, 255];
const HEART = [246, 196, 83, 255];
/** scale: how much of the canvas the flower fills (maskable icons keep it inside the safe zone). */
function flower(scale, rounded) {
  return (u, v) => {
    const x = (u - 0.5) / scale;
    const y = (v - 0.5) / scale;
    if (rounded) {
      const dx = Math.max(Math.abs(u - 0.5) - 0.3, 0);
      const dy = Math.max(Math.abs(v - 0.5) - 0.3, 0);
      if (Math.hypot(dx, dy) > 0.2) return [0, 0, 0, 0];
    }
    if (Math.hypot(x, y) < 0.09) return HEART;
    for (let k = 0; k < 5; k++) {
      const a = (k / 5) * 2 * Math.PI - Math.PI / 2;
      if (Math.hypot(x - 0.2 * Math.cos(a), y - 0.2 * Math.sin(a)) < 0.14) return PETAL;
    }
    return BRAND;
  };
}

fs.writeFileSync(path.join(out, 'icon-192.png'), png(192, flower(1, true)));
fs.writeFileSync(path.join(out, 'icon-512.png'), png(512, flower(1, true)));
fs.writeFileSync(path.join(out, 'icon-maskable-512.png'), png(512, flower(0.72, false)));
fs.writeFileSync(path.join(out, 'apple-touch-icon.png'), png(180, flower(0.8, false)));
console.log(`icons written to ${out}`);
