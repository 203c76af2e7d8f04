import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The catalog first: English is set up synchronously as this module loads.
import { loadLanguage } from './i18n';
// The global sheet first, so component modules (bundled after it) win ties in the cascade.
import './styles.css';
import { App } from './app';
import { initTheme } from './lib/theme';

// The chosen theme before anything is drawn, so the page never flashes the other one.
initTheme();

function render(): void {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

// English renders at once; another language waits for its catalog, so no key ever shows.
const pending = loadLanguage();
if (pending) void pending.then(render);
else render();
