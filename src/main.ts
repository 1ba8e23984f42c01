import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { backend } from './state/backend.svelte.ts';
import { pageActivationBudget, setActivationBudget } from './lib/models/deep/activationBudget.ts';
import { declaredDeviceMemoryGiB, type BackendPref, type BackendReport } from './lib/env/device.ts';
import type { SelfCheckResult } from './lib/env/selfCheck.ts';

/** Read-only hooks for end-to-end tests and the curious console user. */
export interface RacDebug {
  backendReport: () => BackendReport | null;
  selfCheck: () => SelfCheckResult | null;
  backendStatus: () => string;
  setBackend: (pref: BackendPref) => void;
  simulateDeviceLost: () => Promise<boolean>;
}

declare global {
  interface Window {
    __rac: RacDebug;
  }
}

// The estimates count deep steps as the run's worker will take them: keeping or recomputing
// activations by the memory this device declares (workers/bench.worker.ts sets the same).
setActivationBudget(pageActivationBudget(declaredDeviceMemoryGiB(globalThis.navigator)));

window.__rac = {
  backendReport: () => backend.report,
  selfCheck: () => backend.check,
  backendStatus: () => backend.status,
  setBackend: (pref) => backend.setPref(pref),
  simulateDeviceLost: () => backend.simulateDeviceLost(),
};

const target = document.getElementById('app');
if (!target) throw new Error('main: expected an element with id "app" in index.html, got none.');
export default mount(App, { target });
