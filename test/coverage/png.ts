// Just enough PNG decoding (node's zlib, no dependency) to check a browser screenshot: the IHDR size, and the
// pixels (8-bit RGB or RGBA, non-interlaced, as Chromium writes them) to tell a rendered page from a blank one.
import { inflateSync } from 'node:zlib';

export interface DecodedPng {
  width: number;
  height: number;
  channels: number;
  /** unfiltered scanlines, `channels` bytes per pixel */
  pixels: Buffer;
}

const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function decodePng(png: Buffer): DecodedPng {
  if (!png.subarray(0, 8).equals(signature)) throw new Error('not a PNG (bad signature)');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const data = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const bitDepth = data[8];
      const colorType = data[9];
      const interlace = data[12];
      if (bitDepth !== 8 || interlace !== 0 || (colorType !== 2 && colorType !== 6)) throw new Error(`unsupported PNG: bit depth ${bitDepth}, color type ${colorType}, interlace ${interlace}`);
      channels = colorType === 6 ? 4 : 3;
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[x - channels]! : 0;
      const b = prev[x]!;
      const c = x >= channels ? prev[x - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[x] = (line[x]! + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** How many distinct RGB colours the image has, and how many pixels have the most common one. */
export function colourStats(png: DecodedPng): { distinct: number; dominantShare: number } {
  const counts = new Map<number, number>();
  const { pixels, channels } = png;
  for (let i = 0; i < pixels.length; i += channels) {
    const rgb = (pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!;
    counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
  }
  const total = pixels.length / channels;
  return { distinct: counts.size, dominantShare: Math.max(...counts.values()) / total };
}

/** The RGB colour at (x, y). */
export function pixelAt(png: DecodedPng, x: number, y: number): [number, number, number] {
  const i = (y * png.width + x) * png.channels;
  return [png.pixels[i]!, png.pixels[i + 1]!, png.pixels[i + 2]!];
}
