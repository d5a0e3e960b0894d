import { ChunkBubbles } from "./chunk-bubbles.js";

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
