import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import type { ChatResponse } from "../../server/route-types.js";
import { ApiError, postJson } from "../api-client.js";
import { ErrorNotice } from "../components/error-notice.js";
import { PersonaIdField, personaIdOf } from "../components/persona-id-field.js";
import { PageHeading } from "../page-heading.js";

/** One turn of the conversation kept in the browser (the API is stateless, docs/API.md §1.3). */
interface Turn {
  id: number;
  role: "user" | "assistant";
  content: string;
}

/**
 * `/chat` — a conversation. The browser keeps the history and sends all of
 * it with every message to `POST /api/chat`; each reply is one bubble (its
 * chunks are pieces of one message here, not separate messages: see the
 * README). A failed message can be sent again or discarded.
 */
export function ChatPage() {
  const messageId = useId();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState("");
  const [personaId, setPersonaId] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const nextId = useRef(1);
  const controller = useRef<AbortController | null>(null);
  const composer = useRef<HTMLTextAreaElement>(null);
  const logEnd = useRef<HTMLDivElement>(null);

  useEffect(() => () => controller.current?.abort(), []);
  // Keep the newest bubble in view as the conversation grows.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when turns, pending or error change
  useEffect(() => {
    logEnd.current?.scrollIntoView?.({ block: "end" });
  }, [turns, pending, error]);

  const request = (history: Turn[]) => {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    setPending(true);
    setError(null);
    const messages = history.map(({ role, content }) => ({ role, content }));
    postJson<ChatResponse>("/api/chat", { messages, ...personaIdOf(personaId) }, current.signal)
      .then((answer) => {
        if (current.signal.aborted) return;
        const id = nextId.current++;
        setTurns([...history, { id, role: "assistant", content: answer.reply }]);
      })
      .catch((caught: unknown) => {
        if (current.signal.aborted) return;
        setError(
          caught instanceof ApiError
            ? caught
            : new ApiError("network", undefined, "The call failed in the browser."),
        );
      })
      .finally(() => {
        if (!current.signal.aborted) setPending(false);
      });
  };

  const send = (event?: FormEvent) => {
    event?.preventDefault();
    const content = draft.trim();
    if (pending || content === "") return;
    const history: Turn[] = [...turns, { id: nextId.current++, role: "user", content }];
    setTurns(history);
    setDraft("");
    request(history);
  };

  // Enter sends, Shift+Enter starts a new line (as in most chat apps).
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) send(event);
  };

  const retry = () => request(turns);

  const discard = () => {
    const last = turns.at(-1);
    if (last?.role === "user") {
      setTurns(turns.slice(0, -1));
      setDraft(last.content);
    }
    setError(null);
    composer.current?.focus();
  };

  const restart = () => {
    controller.current?.abort();
    setTurns([]);
    setPending(false);
    setError(null);
    composer.current?.focus();
  };

  return (
    <>
      <PageHeading>Chat</PageHeading>
      <p className="lead">
        A conversation with the persona. The browser keeps the history and sends it with every
        message to <code>/api/chat</code>; the app's server passes it to the service's
        completions-style endpoint as <code>messages</code>.
      </p>
      <div className="card chat">
        {/* The log role sits on a wrapper: on the list itself it would take away the list
            role its items need (axe "listitem"). */}
        <div role="log" aria-live="polite" aria-label="Conversation">
          <ol className="bubbles conversation">
            {turns.length === 0 ? (
              <li className="empty">No messages yet. Say hello below.</li>
            ) : null}
            {turns.map((turn) => (
              <li
                key={turn.id}
                className={`bubble from-${turn.role === "user" ? "user" : "persona"}`}
              >
                <span className="visually-hidden">
                  {turn.role === "user" ? "You:" : "Persona:"}{" "}
                </span>
                {turn.content}
              </li>
            ))}
            {pending ? (
              <li className="bubble from-persona typing">
                <span className="visually-hidden">The persona is replying…</span>
                <span className="dots" aria-hidden="true">
                  <span />
                  <span />
                  <span />
                </span>
              </li>
            ) : null}
          </ol>
        </div>
        <div ref={logEnd} />
        {error === null ? null : (
          <ErrorNotice
            error={error}
            onRetry={retry}
            secondary={{ label: "Discard the message", onClick: discard }}
          />
        )}
        <form className="composer" onSubmit={send} aria-busy={pending}>
          <label htmlFor={messageId}>Your message</label>
          <textarea
            ref={composer}
            id={messageId}
            name="message"
            rows={2}
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={onKeyDown}
            placeholder="Write a message. Enter sends, Shift+Enter adds a line."
          />
          <div className="composer-actions">
            <button type="submit" aria-disabled={pending}>
              {pending ? "Waiting…" : "Send"}
            </button>
            {turns.length > 0 ? (
              <button type="button" className="button-quiet" onClick={restart}>
                New conversation
              </button>
            ) : null}
          </div>
          <PersonaIdField value={personaId} onChange={setPersonaId} />
        </form>
      </div>
    </>
  );
}
