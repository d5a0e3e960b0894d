import { useReveal } from "../use-reveal.js";

/** Props of {@link ChunkBubbles}. */
export interface ChunkBubblesProps {
  /** The reply's chunks, in order. */
  chunks: readonly string[];
  /** Who speaks: the persona's bubbles sit left, the user's right. */
  from: "persona" | "user";
  /** Shown before the first bubble to screen readers only, e.g. "Persona:". */
  speaker: string;
  /** When true, the chunks appear one after another, like messages arriving. */
  reveal?: boolean;
}

/**
 * A reply's chunks as separate message bubbles (list items, so it must sit
 * inside a list). Give it a new `key` for each new reply so the reveal
 * starts again.
 */
export function ChunkBubbles({ chunks, from, speaker, reveal = false }: ChunkBubblesProps) {
  const revealed = useReveal(chunks.length);
  const shown = reveal ? chunks.slice(0, revealed) : chunks;
  return (
    <>
      {shown.map((chunk, index) => (
        // Chunks are a fixed sequence: their position is their identity.
        // biome-ignore lint/suspicious/noArrayIndexKey: the list never reorders
        <li key={index} className={`bubble from-${from}`}>
          {index === 0 ? <span className="visually-hidden">{speaker} </span> : null}
          {chunk}
        </li>
      ))}
    </>
  );
}
