import { Component, type ErrorInfo, type ReactNode } from 'react';
import styles from './error-boundary.module.css';
import { t } from '../i18n';

interface Props {
  children: ReactNode;
  /** Changing it clears a caught error (e.g. on navigation). */
  resetKey?: string;
}

interface State {
  error: Error | null;
}

/** Shows a readable error instead of a blank page when rendering fails. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('render failed', error, info.componentStack);
  }

  override componentDidUpdate(prev: Props): void {
    if (prev.resetKey !== this.props.resetKey && this.state.error) this.setState({ error: null });
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className={styles.errorScreen} role="alert">
        <h2>{t('errorBoundary.somethingWentWrong')}</h2>
        <p>{t('errorBoundary.couldNotShow', { error: this.state.error.message || t('errorBoundary.unknownError') })}</p>
        <div className="row">
          <button type="button" className="button primary" onClick={() => this.setState({ error: null })}>
            {t('errorBoundary.tryAgain')}
          </button>
          <button type="button" className="button secondary" onClick={() => location.reload()}>
            {t('errorBoundary.reloadThePage')}
          </button>
        </div>
      </div>
    );
  }
}
