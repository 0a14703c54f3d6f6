// Entry point: registers the elements (<pd-app> in index.html does the rest) and the service worker.
import { installCrashReporter } from './crash-reporter.ts';
import './components/pd-app.ts';
import { shareTokenWithServiceWorker } from './gates-state.ts';

installCrashReporter();

if ('serviceWorker' in navigator) {
  const hadController = !!navigator.serviceWorker.controller;
  // A new version took over: reload once, so the page and its shell are the same version.
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (hadController) location.reload();
  });
  window.addEventListener('load', () => void navigator.serviceWorker.register('/sw.js').catch(() => {}));
  // The service worker decides gates from notifications: it needs the token the page holds.
  const token = localStorage.getItem('pd.token');
  if (token) void shareTokenWithServiceWorker(token).catch(() => {});
}
