import type { CallState } from "../use-route-call.js";
import { ChunkBubbles } from "./chunk-bubbles.js";
import { ErrorNotice } from "./error-notice.js";

/** What a one-shot page shows once the persona answered: the text, its chunks, the persona. */
export interface ResultCardProps {
  /** Heading of the card, e.g. "Reply" or "Rewritten text". */
  title: string;
  /** Accessible name of the chunk list, e.g. "Reply chunks". */
  chunksLabel: string;
  text: string;
  chunks: string[];
  /** The persona ID that answered. */
  model: string;
  /** Changes on every new answer, so the bubbles replay their arrival. */
  sequence: number;
}

/** The answer card shared by the quickstart and personify pages. */
export function ResultCard({ title, chunksLabel, text, chunks, model, sequence }: ResultCardProps) {
  return (
    <div className="card">
      <h2>{title}</h2>
      <p className="reply-text">{text}</p>
      <h3>
        Chunks <span className="count">({chunks.length})</span>
      </h3>
      <ol className="bubbles" aria-label={chunksLabel}>
        <ChunkBubbles key={sequence} chunks={chunks} from="persona" speaker="Persona:" />
      </ol>
      <p className="model">
        Persona <code>{model}</code>
      </p>
    </div>
  );
}

/** What {@link ResultSection} shows: a call's state, and how to name and read its answer. */
export interface ResultSectionProps<T extends { chunks: string[]; model: string }> {
  /** The call's state (use-route-call.ts). */
  state: CallState<T>;
  /** Heading of the card and accessible name of the section, e.g. "Reply". */
  title: string;
  /** Accessible name of the chunk list, e.g. "Reply chunks". */
  chunksLabel: string;
  /** The answer's text, e.g. the reply or the rewritten text. */
  textOf: (value: T) => string;
}

/** The live region under a one-shot page's form: the error, the answer card, or nothing yet. */
export function ResultSection<T extends { chunks: string[]; model: string }>({
  state,
  title,
  chunksLabel,
  textOf,
}: ResultSectionProps<T>) {
  return (
    <section className="result" aria-live="polite" aria-label={title}>
      {state.status === "failed" ? (
        <ErrorNotice error={state.error} />
      ) : state.status === "done" ? (
        <ResultCard
          title={title}
          chunksLabel={chunksLabel}
          text={textOf(state.value)}
          chunks={state.value.chunks}
          model={state.value.model}
          sequence={state.sequence}
        />
      ) : null}
    </section>
  );
}
