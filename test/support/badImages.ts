/** Image files that must be refused at upload (issue 39), shared by the API tests and the health bench. */

/** A GIF whose header says `screen` × `screen` and whose only frame is `frame` × `frame`, in a few bytes of LZW. */
export function gifFrameBomb(screen: number, frame: number): Buffer {
  const le16 = (n: number) => [n & 255, n >> 8];
  return Buffer.from([
    ...Buffer.from('GIF89a'),
    ...le16(screen), ...le16(screen), 0x80, 0, 0, // logical screen, a global table of two colours
    0, 0, 0, 255, 255, 255,
    0x2c, 0, 0, 0, 0, ...le16(frame), ...le16(frame), 0, // the frame's descriptor
    2, 2, 0x4c, 0x01, 0, // LZW: minimum code size 2, one tiny sub-block
    0x3b,
  ]);
}
