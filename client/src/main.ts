// Entry point: registers the elements (<pd-app> in index.html does the rest) and the service worker.
import { installCrashReporter } from './crash-reporter.ts';
import './components/pd-app.ts';

installCrashReporter();

if ('serviceWorker' in navigator) {
  const hadController = !!navigator.serviceWorker.controller;
  // A new version took over: reload once, so the page and its shell are the same version.
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (hadController) location.reload();
  });
  window.addEventListener('load', () => void navigator.serviceWorker.register('/sw.js').catch(() => {}));
}
