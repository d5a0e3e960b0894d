import type { ApiError } from "../api-client.js";

/** What each kind of error asks the user to do. */
function headingOf(error: ApiError): string {
  switch (error.type) {
    case "validation":
      return "Check what you sent";
    case "config":
      return "The example server is not configured";
    case "provider":
      // 503 and 504 are the example server's own: no answer came from the service.
      if (error.status === 503) return "The service could not be reached";
      if (error.status === 504) return "The service did not answer in time";
      return error.status === 429
        ? "The service's limit is reached (429)"
        : `The service answered with an error (${error.status ?? 502})`;
    case "network":
      return "The example server could not be reached";
  }
}

/** The hint under the message, by error type. */
function hintOf(error: ApiError): string | undefined {
  switch (error.type) {
    case "validation":
      return "Fix the field named above and send again.";
    case "config":
      return "Restart the example server after setting it. The key stays on the server; this page never sees it.";
    case "provider":
      if (error.status === 503) {
        return "Check that the Persona Reply service is running and that the example server's SERVICE_BASE_URL points at it.";
      }
      if (error.status === 504) return "Try again in a moment.";
      return error.status === 429
        ? "The account's rate limit or balance is used up. Wait a moment, then try again."
        : undefined;
    case "network":
      return "Start it with npm start (or npm run dev in example-app/), then try again.";
  }
}

/** Props of {@link ErrorNotice}. */
export interface ErrorNoticeProps {
  error: ApiError;
  /** When given, a "Try again" button calls it. */
  onRetry?: () => void;
  /** When given, a second button calls it, e.g. to discard a failed message. */
  secondary?: { label: string; onClick: () => void };
}

/**
 * An error of a route, shown by its type (docs/API.md §4.6): `validation` says what
 * to fix, `config` names the missing variable, `provider` gives the
 * service's message. Announced at once to screen readers (`role="alert"`).
 */
export function ErrorNotice({ error, onRetry, secondary }: ErrorNoticeProps) {
  const hint = hintOf(error);
  return (
    <div className={`notice notice-${error.type}`} role="alert" data-error-type={error.type}>
      <p className="notice-title">{headingOf(error)}</p>
      <p className="notice-message">{error.message}</p>
      {hint === undefined ? null : <p className="notice-hint">{hint}</p>}
      {onRetry === undefined && secondary === undefined ? null : (
        <div className="notice-actions">
          {onRetry === undefined ? null : (
            <button type="button" onClick={onRetry}>
              Try again
            </button>
          )}
          {secondary === undefined ? null : (
            <button type="button" className="button-quiet" onClick={secondary.onClick}>
              {secondary.label}
            </button>
          )}
        </div>
      )}
    </div>
  );
}
