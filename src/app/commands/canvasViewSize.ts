/** The canvas's size on screen, once it is laid out. */
export function canvasViewSize(): { width: number; height: number } | null {
  const host = document.querySelector('.canvas-host');
  return host ? { width: host.clientWidth, height: host.clientHeight } : null;
}
