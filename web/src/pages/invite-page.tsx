import { useEffect, useRef, useState } from 'react';
import { describeError } from '../api/client';
import { joinInvite } from '../state/actions';
import { Link, navigate, paths } from '../router';

/** /invite/<code>: joins the server as soon as the person is logged in. */
export function InvitePage({ code }: { code: string }) {
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    joinInvite(code)
      .then((server) => navigate(paths.server(server.id), { replace: true }))
      .catch((err) => setError(describeError(err)));
  }, [code]);
  return (
    <main className="center-page">
      <div className="card">
        {error ? (
          <>
            <h1>This invite did not work</h1>
            <p role="alert">{error}</p>
            <p className="hint">The link may have expired or been mistyped. Ask for a new one.</p>
            <Link to={paths.home()} className="button primary">
              Go to Parley
            </Link>
          </>
        ) : (
          <>
            <h1>Joining…</h1>
            <p>Accepting your invite.</p>
          </>
        )}
      </div>
    </main>
  );
}
