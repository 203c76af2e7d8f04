import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// The global sheet first, so component modules (bundled after it) win ties in the cascade.
import './styles.css';
import { App } from './app';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
