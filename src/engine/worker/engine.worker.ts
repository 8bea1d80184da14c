/// <reference lib="webworker" />
/**
 * The engine's Web Worker, so the page stays responsive while the encoder runs for seconds: it
 * starts the browser's engine (webEngine.ts) and serves its EngineApi (client.ts connects to it).
 */
import './jitlessZod';
import { ENGINE_TRANSFERS } from '../service/api';
import { serve } from '../service/transport';
import { startWebEngine } from './webEngine';
import { webWorkerScopePort } from './webPort';

declare const self: DedicatedWorkerGlobalScope;

serve(webWorkerScopePort(self), startWebEngine, { transfers: ENGINE_TRANSFERS });
