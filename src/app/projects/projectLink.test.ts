import { describe, expect, it } from 'vitest';
import { addressWithProject, projectInAddress } from './projectLink';

describe('the project in the address', () => {
  it('is read from ?project=, beside the hash route', () => {
    expect(projectInAddress('https://studio.example/?project=prj_42#/')).toBe('prj_42');
    expect(projectInAddress('https://studio.example/#/?project=prj_42')).toBeNull();
    expect(projectInAddress('https://studio.example/?project=#/')).toBeNull();
    expect(projectInAddress('https://studio.example/#/account')).toBeNull();
  });

  it('is set and removed keeping the path, the other parameters and the hash', () => {
    const named = addressWithProject('https://studio.example/app/?models=fp32#/account', 'prj 1');
    expect(named).toBe('https://studio.example/app/?models=fp32&project=prj+1#/account');
    expect(projectInAddress(named)).toBe('prj 1');
    expect(addressWithProject(named, null)).toBe('https://studio.example/app/?models=fp32#/account');
    expect(addressWithProject(addressWithProject('https://studio.example/#/', 'a'), 'b')).toBe('https://studio.example/?project=b#/');
  });
});
