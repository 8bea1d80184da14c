import type Konva from 'konva';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Circle, Group, Image as KonvaImage, Layer, Line, Rect, Stage } from 'react-konva';
import type { Vertex } from '../../engine/types';
import { fitRegion, fitToScreen, panBy, screenToImage, wheelZoomFactor, zoomAt, type Camera } from '../geometry/camera';
import { boundsOf } from '../../annotations/polygon';
import { boxToCornerRect } from '../geometry/centerBox';
import { imageElement, subscribeImages } from '../images/imageLibrary';
import { handleToolOutputs } from '../inferenceController';
import { emptyPrompt } from '../state/model';
import { type ImageEntry } from '../../annotations/annotation';
import { studio, useStudio } from '../state/studioStore';
import { useCamera } from '../state/cameraStore';
import { useHoverPreview } from '../state/hoverPreviewStore';
import { useEarlyMask } from '../state/earlyMaskStore';
import { maskPixels } from './maskPixels';
import { MASK_ON_SCREEN_MARK } from './maskOnScreenMark';
import type { BinaryMask } from '../../engine/types';
import { useTool } from '../state/toolStore';
import { crosshairKey, crosshairStart, type CrosshairState } from '../tools/keyboardCrosshair';
import { usePreferences } from '../state/preferences';
import { useCanvasTouch } from './useCanvasTouch';
import { panTransition, type PanState } from '../tools/panGesture';
import { draggedBox, stepToolSessionAll, strokeUnderWay, toolSessionFor, type ToolSession } from '../tools/toolSession';
import type { ToolEvent } from '../tools/types';
import { pointerToolEvent, touchToolEvents, type ImageView } from '../tools/pointerInput';
import { PolygonShape } from './PolygonShape';
import { BrushOverlay, brushWheel } from './BrushOverlay';
import { VertexHandles } from './VertexHandles';
import { BoxHandles } from './BoxHandles';
import { boxPolygon } from '../geometry/boxHandles';
import { isBox, type Annotation } from '../../annotations/annotation';
import { displayColor } from '../state/classOps';
import { edits, liveSelection } from '../state/editActions';
import { useEdit } from '../state/editStore';
import { isProposal, isShown } from '../../annotations/review';
import { useReview } from '../state/reviewStore';
import { insertVertex, nearestEdge } from '../geometry/vertexEdit';

/** A box with its rectangle as its outline, so it is drawn (and zoomed to) as a mask's outline is. */
const withBoxOutline = (o: Annotation): Annotation => (isBox(o) ? { ...o, polygons: [boxPolygon(o.box)] } : o);

/** How close (screen pixels) a click must be to the selected outline to act on it. */
const EDGE_REACH_PX = 6;

function useImageElement(id: string | undefined) {
  const [, force] = useState(0);
  useEffect(() => subscribeImages(() => force((n) => n + 1)), []);
  return id ? imageElement(id) : null;
}

/** Re-fits when the image or the view size changes; keeps the user's zoom otherwise. */
export function fitActiveImage(image: ImageEntry | null, size: { width: number; height: number }) {
  if (!image || size.width < 10) return;
  useCamera.getState().setCamera(fitToScreen(image.width, image.height, size.width, size.height));
}

export function StudioCanvas() {
  const containerRef = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState({ width: 0, height: 0 });
  const doc = useStudio((s) => s.history.present);
  const image = doc.images.find((i) => i.id === doc.activeImageId) ?? null;
  const prompt = (image && doc.prompts[image.id]) || emptyPrompt();
  const objects = (image && doc.objects[image.id]) || [];
  // Rejected proposals stay in the document (undo, no second proposal) but are not drawn.
  // A box is drawn as its rectangle, with the masks' fill and outline.
  const drawn = objects.filter((o) => o.visible && isShown(o)).map(withBoxOutline);
  const reviewing = useReview((s) => (s.open ? s.current : null));
  const reviewed = reviewing && image && reviewing.imageId === image.id ? drawn.find((o) => o.id === reviewing.objectId && isProposal(o)) : undefined;
  const element = useImageElement(image?.id);
  const tool = useTool((s) => s.tool);
  const camera = useCamera((s) => s.camera);
  const hoverPreview = useHoverPreview((s) => s.preview);
  const earlyMask = useEarlyMask((s) => s.early);
  const earlyMaskShown = earlyMask && image && earlyMask.imageId === image.id && earlyMask.revision === prompt.revision && prompt.status === 'pending' ? earlyMask.mask : null;
  const earlyMaskImage = useMemo(() => earlyMaskShown && maskCanvas(earlyMaskShown), [earlyMaskShown]);
  const [keptSession, setToolSession] = useState<ToolSession | null>(null);
  const panRef = useRef<PanState>({ phase: 'idle' });
  const [panPhase, setPanPhase] = useState<PanState['phase']>('idle');
  const [cursorAt, setCursorAt] = useState<Vertex | null>(null);
  useEdit((s) => s.selection);
  const selection = liveSelection(doc);
  const editing = selection.length === 1 ? objects.find((o) => o.id === selection[0]) : undefined;
  const boxDrawing = usePreferences((s) => s.boxDrawing);
  const toolSession = toolSessionFor(keptSession, tool, { boxDrawing });
  // Input can come faster than renders (a touch gesture gives a press and a move at once): each
  // event steps the session the previous one left, not the one of the last render.
  const latestSession = useRef(toolSession);
  latestSession.current = toolSession;
  const [crosshair, setCrosshair] = useState<CrosshairState | null>(null);
  const [focused, setFocused] = useState(false);
  // The crosshair is the keyboard's: it shows when focus came by Tab or an arrow was pressed. After a
  // mouse click on the canvas, Enter keeps meaning "accept" and Space "pan", as the help says.
  const [keyboardMode, setKeyboardMode] = useState(false);
  const pressedByPointer = useRef(false);
  // Mouse events do not say whether a pen made them; the pointer event before each one does.
  const pointerDevice = useRef<'mouse' | 'pen'>('mouse');

  useEffect(() => {
    const node = containerRef.current;
    if (!node) return;
    const observer = new ResizeObserver(([entry]) => setSize({ width: Math.floor(entry.contentRect.width), height: Math.floor(entry.contentRect.height) }));
    observer.observe(node);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    fitActiveImage(image, size);
    // Fit on image switch and on resize only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [image?.id, size.width, size.height]);

  // Review zooms to the proposal it shows (after the fit above, on an image switch).
  useEffect(() => {
    const bounds = reviewed && boundsOf(reviewed.polygons);
    if (bounds && image && size.width >= 10) useCamera.getState().setCamera(fitRegion(bounds, image, size));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reviewed?.id, image?.id, size.width, size.height]);

  // Coming back to a tool starts it fresh (toolSessionFor already ignores a session of another tool).
  useEffect(() => setToolSession(null), [tool, boxDrawing]);
  useEffect(() => useEdit.getState().select([]), [image?.id]);
  useEffect(() => setCrosshair(null), [image?.id]);

  /** The one input path: every device's normalised events go to the tool that is on. Says whether it took them. */
  const dispatch = useCallback((events: ToolEvent | readonly ToolEvent[] | null): boolean => {
    if (!events) return false;
    const step = stepToolSessionAll(latestSession.current, Array.isArray(events) ? events : [events as ToolEvent]);
    latestSession.current = step.session;
    setToolSession(step.session);
    handleToolOutputs(step.outputs);
    return step.handled;
  }, []);

  const updatePan = (event: Parameters<typeof panTransition>[1]) => {
    const result = panTransition(panRef.current, event);
    panRef.current = result.state;
    setPanPhase(result.state.phase);
    if (result.delta) {
      const current = useCamera.getState().camera;
      if (current) useCamera.getState().setCamera(panBy(current, result.delta[0], result.delta[1]));
    }
    return result.captured;
  };

  useEffect(() => {
    const isTyping = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    const down = (e: KeyboardEvent) => {
      if (e.code === 'Space' && !isTyping(e.target)) {
        e.preventDefault();
        if (!e.repeat) updatePan({ type: 'spaceDown' });
      }
      if (e.key === 'Escape') dispatch({ type: 'cancel' });
    };
    const up = (e: KeyboardEvent) => {
      if (e.code === 'Space') updatePan({ type: 'spaceUp' });
    };
    window.addEventListener('keydown', down);
    window.addEventListener('keyup', up);
    return () => {
      window.removeEventListener('keydown', down);
      window.removeEventListener('keyup', up);
    };
  });

  // A box drag that leaves the canvas keeps following the pointer, and releasing the button anywhere
  // finishes it: otherwise the box stays stuck to the cursor and the next click commits it.
  const boxDrag = draggedBox(toolSession);
  const dragging = boxDrag !== null;
  useEffect(() => {
    if (!dragging) return;
    const outside = (e: MouseEvent) => !containerRef.current?.contains(e.target as Node);
    const at = (e: MouseEvent): Vertex | null => {
      const rect = containerRef.current?.getBoundingClientRect();
      const cam = useCamera.getState().camera;
      return rect && cam ? clampToImage(screenToImage(cam, [e.clientX - rect.left, e.clientY - rect.top])) : null;
    };
    const move = (e: MouseEvent) => {
      const p = outside(e) ? at(e) : null;
      if (p) dispatch({ type: 'move', at: p, device: pointerDevice.current, shiftKey: e.shiftKey });
    };
    const up = (e: MouseEvent) => {
      const p = outside(e) ? at(e) : null;
      if (p) dispatch({ type: 'up', at: p, device: pointerDevice.current, shiftKey: e.shiftKey });
    };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
    return () => {
      window.removeEventListener('mousemove', move);
      window.removeEventListener('mouseup', up);
    };
  });

  useCanvasTouch(containerRef, {
    onGesture: (gesture) => {
      const cam = useCamera.getState().camera;
      if (cam && image) dispatch(touchToolEvents(gesture, imageView(cam)));
    },
  });

  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>) => {
    if (!image || !camera || e.altKey || e.metaKey) return;
    if (e.ctrlKey) {
      // Ctrl+Enter accepts the selected mask without leaving the canvas (Enter places points here).
      if (e.key === 'Enter' && prompt.candidates.length) {
        e.preventDefault();
        e.stopPropagation();
        studio.acceptCandidate(image.id);
      }
      return;
    }
    const arrow = e.key.startsWith('Arrow');
    if (!keyboardMode && !arrow) return;
    if (arrow) setKeyboardMode(true);
    // Escape cancels a box under way here; otherwise it is the page's (clear the prompt).
    if (e.key === 'Escape' && !draggedBox(latestSession.current)) return;
    const current = crosshair ?? crosshairStart(image.width, image.height);
    const result = crosshairKey(current, { key: e.key, shiftKey: e.shiftKey }, { imageWidth: image.width, imageHeight: image.height, step: 8 / camera.scale });
    if (!result.events.length) return;
    const taken = dispatch(result.events);
    if (!taken && !result.moved) return;
    e.preventDefault();
    e.stopPropagation();
    setCrosshair(result.state);
  };

  const pointer = (stage: Konva.Stage | null): { screen: Vertex; image: Vertex } | null => {
    const position = stage?.getPointerPosition();
    if (!position || !camera) return null;
    const screen: Vertex = [position.x, position.y];
    return { screen, image: screenToImage(camera, screen) };
  };

  const inImage = (p: Vertex) => image !== null && p[0] >= 0 && p[1] >= 0 && p[0] < image.width && p[1] < image.height;
  const clampToImage = (p: Vertex): Vertex => (image ? [Math.min(image.width, Math.max(0, p[0])), Math.min(image.height, Math.max(0, p[1]))] : p);
  const imageView = (cam: Camera): ImageView => ({ toImage: (screen) => screenToImage(cam, screen), contains: inImage, clamp: clampToImage });
  const mouseInput = (type: 'down' | 'move' | 'up', e: MouseEvent, screen: Vertex) =>
    camera ? pointerToolEvent({ type, screen, device: pointerDevice.current, button: e.button, altKey: e.altKey, shiftKey: e.shiftKey }, imageView(camera), dragging) : null;

  const onMouseDown = (e: Konva.KonvaEventObject<MouseEvent>) => {
    const at = pointer(e.target.getStage());
    if (!at) return;
    if (updatePan({ type: 'down', screen: at.screen, button: e.evt.button })) {
      e.evt.preventDefault();
      return;
    }
    // On the selected object's outline a click belongs to the outline (a double-click there adds a vertex).
    if (tool === 'select' && editing && nearestEdge(editing.polygons, at.image, EDGE_REACH_PX / scale)) return;
    dispatch(mouseInput('down', e.evt, at.screen));
  };
  const onMouseMove = (e: Konva.KonvaEventObject<MouseEvent>) => {
    const at = pointer(e.target.getStage());
    if (!at) return;
    if (tool === 'brush' || tool === 'eraser') setCursorAt(at.image);
    if (updatePan({ type: 'move', screen: at.screen })) return;
    dispatch(mouseInput('move', e.evt, at.screen));
  };
  const onMouseUp = (e: Konva.KonvaEventObject<MouseEvent>) => {
    const at = pointer(e.target.getStage());
    if (updatePan({ type: 'up' })) return;
    if (at) dispatch(mouseInput('up', e.evt, at.screen));
  };
  const onDblClick = (e: Konva.KonvaEventObject<MouseEvent>) => {
    const at = pointer(e.target.getStage());
    if (tool !== 'select' || !editing || !at) return;
    const polygons = editing.polygons;
    const edge = nearestEdge(polygons, at.image, EDGE_REACH_PX / (camera?.scale ?? 1));
    if (edge) edits.setPolygons(editing.id, insertVertex(polygons, edge.ref, edge.foot), 'insert vertex');
  };
  const onWheel = (e: Konva.KonvaEventObject<WheelEvent>) => {
    e.evt.preventDefault();
    // Brush / eraser: the wheel while the button is held changes the brush size instead of zooming.
    if ((tool === 'brush' || tool === 'eraser') && brushWheel(e.evt)) return;
    const at = pointer(e.target.getStage());
    if (!at || !camera) return;
    useCamera.getState().setCamera(zoomAt(camera, at.screen, wheelZoomFactor(e.evt.deltaY)));
  };

  const scale = camera?.scale ?? 1;
  const selected = prompt.candidates[prompt.selected];
  useMaskOnScreenMark(earlyMaskImage ?? selected);
  const cursor = panPhase === 'panning' ? 'grabbing' : panPhase === 'ready' ? 'grab' : image ? toolSession.tool.cursor : 'default';

  return (
    <div
      ref={containerRef}
      className="canvas-host"
      role="application"
      tabIndex={image ? 0 : -1}
      aria-label="Image canvas: click or tap an object to select it, right-click or long-press to exclude a part, wheel or pinch to zoom. Keyboard: arrow keys move the crosshair (Shift for larger steps), Enter or Space adds a point, Shift+Enter excludes, Ctrl+Enter accepts"
      style={{ cursor }}
      data-crosshair={focused && keyboardMode && crosshair ? `${Math.round(crosshair.at[0])},${Math.round(crosshair.at[1])}` : ''}
      onKeyDown={onKeyDown}
      onPointerMoveCapture={(e) => {
        if (e.pointerType !== 'touch') pointerDevice.current = e.pointerType === 'pen' ? 'pen' : 'mouse';
      }}
      onPointerDownCapture={(e) => {
        if (e.pointerType !== 'touch') pointerDevice.current = e.pointerType === 'pen' ? 'pen' : 'mouse';
        pressedByPointer.current = true;
        setKeyboardMode(false);
      }}
      onFocus={(e) => {
        if (e.target !== e.currentTarget) return;
        setFocused(true);
        setKeyboardMode(!pressedByPointer.current);
        pressedByPointer.current = false;
        if (!crosshair && image) setCrosshair(crosshairStart(image.width, image.height));
      }}
      onBlur={() => {
        setFocused(false);
        pressedByPointer.current = false;
      }}
      data-testid="canvas"
      data-camera={camera ? `${camera.scale.toFixed(4)},${camera.x.toFixed(1)},${camera.y.toFixed(1)}` : ''}
      data-selection={selection.join(',')}
      data-drawn-objects={drawn.filter((o) => !isProposal(o)).length}
      data-drawn-proposals={drawn.filter(isProposal).length}
      data-review-current={reviewed?.id ?? ''}
      data-hover-preview={hoverPreview && image && hoverPreview.imageId === image.id ? 'visible' : 'none'}
      data-early-mask={earlyMaskImage ? 'visible' : 'none'}
      onContextMenu={(e) => e.preventDefault()}
      onMouseLeave={() => {
        setCursorAt(null);
        dispatch({ type: 'leave' });
      }}
    >
      {size.width > 0 && (
        <Stage width={size.width} height={size.height} onMouseDown={onMouseDown} onMouseMove={onMouseMove} onMouseUp={onMouseUp} onWheel={onWheel} onDblClick={onDblClick}>
          <Layer>
            {camera && image && (
              <Group x={camera.x} y={camera.y} scaleX={camera.scale} scaleY={camera.scale}>
                {element && <KonvaImage image={element} width={image.width} height={image.height} listening={false} />}
                {drawn.map((o) =>
                  isProposal(o) ? (
                    // A proposal: lighter fill, dashed outline, until someone accepts it.
                    <PolygonShape key={o.id} name="proposal" polygons={o.polygons} fill={`${displayColor(doc, o)}2e`} stroke={displayColor(doc, o)} dash={[7, 4]} scale={scale} strokePx={1.75} />
                  ) : (
                    <PolygonShape key={o.id} name="object" polygons={o.polygons} fill={`${displayColor(doc, o)}66`} stroke={displayColor(doc, o)} scale={scale} />
                  ),
                )}
                {reviewed && <PolygonShape name="review-current" polygons={reviewed.polygons} fill="rgba(255,255,255,0.08)" stroke="#fde047" dash={[10, 5]} scale={scale} strokePx={3} />}
                {objects
                  .filter((o) => selection.includes(o.id))
                  .map(withBoxOutline)
                  .map((o) => (
                    <PolygonShape key={`selected-${o.id}`} name="selected-object" polygons={o.polygons} fill="rgba(255,255,255,0.12)" stroke="#ffffff" dash={[5, 3]} scale={scale} strokePx={2.5} />
                  ))}
                {editing && isBox(editing) && (tool === 'select' || tool === 'box-annotation') && <BoxHandles key={editing.id} objectId={editing.id} box={editing.box} scale={scale} clamp={clampToImage} />}
                {editing && !isBox(editing) && tool === 'select' && <VertexHandles objectId={editing.id} polygons={editing.polygons} scale={scale} />}
                {(tool === 'brush' || tool === 'eraser') && <BrushOverlay erase={tool === 'eraser'} cursor={cursorAt} stroke={strokeUnderWay(toolSession)} scale={scale} />}
                {hoverPreview && hoverPreview.imageId === image.id && !selected && (
                  <PolygonShape name="hover-preview" polygons={hoverPreview.polygons} fill="rgba(255,255,255,0.22)" stroke="#ffffff" dash={[6, 4]} scale={scale} strokePx={1.5} />
                )}
                {earlyMaskImage && <KonvaImage name="early-mask" image={earlyMaskImage} width={image.width} height={image.height} listening={false} />}
                {selected && <PolygonShape name="candidate" polygons={selected.polygons} fill="rgba(56,189,248,0.38)" stroke="#38bdf8" scale={scale} strokePx={2.5} />}
                {prompt.box && <BoxMarker box={prompt.box} scale={scale} />}
                {boxDrag && <BoxMarker box={boxDrag} scale={scale} dragging />}
                {focused && keyboardMode && crosshair && <Crosshair at={crosshair.at} scale={scale} />}
                {prompt.points.map((p, i) => (
                  <Group key={i} x={p.x} y={p.y} listening={false}>
                    <Circle radius={7 / scale} fill={p.positive === false ? '#ef4444' : '#22c55e'} stroke="#ffffff" strokeWidth={2 / scale} />
                    <Line points={[-3.5 / scale, 0, 3.5 / scale, 0]} stroke="#fff" strokeWidth={1.6 / scale} />
                    {p.positive !== false && <Line points={[0, -3.5 / scale, 0, 3.5 / scale]} stroke="#fff" strokeWidth={1.6 / scale} />}
                  </Group>
                ))}
              </Group>
            )}
          </Layer>
        </Stage>
      )}
    </div>
  );
}

/**
 * A performance mark when a click's answer (its early mask, or its polygons) is drawn — in the animation
 * frame that paints it — so the bench can time click → mask as a person sees it.
 */
function useMaskOnScreenMark(drawn: unknown): void {
  useEffect(() => {
    if (!drawn) return;
    const frame = requestAnimationFrame(() => performance.mark(MASK_ON_SCREEN_MARK));
    return () => cancelAnimationFrame(frame);
  }, [drawn]);
}

/** The candidate's fill colour (as drawn for its polygons), for a mask drawn before them. */
const EARLY_MASK_RGBA = [56, 189, 248, 97] as const;

function maskCanvas(mask: BinaryMask): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = mask.width;
  canvas.height = mask.height;
  canvas.getContext('2d')?.putImageData(new ImageData(maskPixels(mask, EARLY_MASK_RGBA), mask.width, mask.height), 0, 0);
  return canvas;
}

/** The keyboard's pointer: a ring with a gap, visible over light and dark photos alike. */
function Crosshair({ at, scale }: { at: Vertex; scale: number }) {
  const inner = 4 / scale;
  const outer = 14 / scale;
  const arms = [
    [at[0] - outer, at[1], at[0] - inner, at[1]],
    [at[0] + inner, at[1], at[0] + outer, at[1]],
    [at[0], at[1] - outer, at[0], at[1] - inner],
    [at[0], at[1] + inner, at[0], at[1] + outer],
  ];
  return (
    <Group listening={false} name="crosshair">
      {arms.map((points, i) => (
        <Line key={`d${i}`} points={points} stroke="#000" strokeWidth={4 / scale} />
      ))}
      {arms.map((points, i) => (
        <Line key={`l${i}`} points={points} stroke="#fde047" strokeWidth={2 / scale} />
      ))}
    </Group>
  );
}

function BoxMarker({ box, scale, dragging = false }: { box: { x: number; y: number; width: number; height: number }; scale: number; dragging?: boolean }) {
  const rect = boxToCornerRect(box);
  const arm = 8 / scale;
  const color = dragging ? '#fbbf24' : '#f59e0b';
  return (
    <Group listening={false} name={dragging ? 'box-drag' : 'box'}>
      <Rect x={rect.left} y={rect.top} width={rect.width} height={rect.height} stroke={color} strokeWidth={2 / scale} dash={dragging ? [6 / scale, 4 / scale] : undefined} fill={dragging ? 'rgba(251,191,36,0.08)' : undefined} />
      <Line points={[box.x - arm, box.y, box.x + arm, box.y]} stroke={color} strokeWidth={2 / scale} />
      <Line points={[box.x, box.y - arm, box.x, box.y + arm]} stroke={color} strokeWidth={2 / scale} />
      <Circle x={box.x} y={box.y} radius={2.5 / scale} fill={color} />
    </Group>
  );
}

export type { Camera };
