import { describe, expect, it } from 'vitest';
import { liveStatusText, type LiveFacts } from './liveStatus';

const settled: LiveFacts = { stream: 'open', sync: 'saved', busy: false, editsWaiting: false };

describe('liveStatusText', () => {
  it('says up to date only when the stream is open and nothing is waiting either way', () => {
    expect(liveStatusText(settled)).toBe('Up to date');
    expect(liveStatusText({ ...settled, busy: true })).toBe('Behind');
    expect(liveStatusText({ ...settled, editsWaiting: true })).toBe('Behind');
    expect(liveStatusText({ ...settled, sync: 'syncing' })).toBe('Behind');
    expect(liveStatusText({ ...settled, stream: 'connecting' })).toBe('Behind');
  });

  it('says offline when either the stream or the writes cannot reach the server, and not saved when the server refused', () => {
    expect(liveStatusText({ ...settled, stream: 'down' })).toBe('Offline');
    expect(liveStatusText({ ...settled, stream: 'down', busy: true })).toBe('Offline');
    expect(liveStatusText({ ...settled, sync: 'offline' })).toBe('Offline');
    expect(liveStatusText({ ...settled, sync: 'error', stream: 'down' })).toBe('Not saved');
  });

  it('names a merge that kept both versions once it is written', () => {
    expect(liveStatusText({ ...settled, sync: 'conflict' })).toBe('Conflict');
    expect(liveStatusText({ ...settled, sync: 'conflict', editsWaiting: true })).toBe('Behind');
  });
});
