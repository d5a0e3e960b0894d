import { type FormEvent, useId, useState } from "react";
import type { QuickstartResponse } from "../../server/route-types.js";
import { PersonaIdField, personaIdOf } from "../components/persona-id-field.js";
import { ResultSection } from "../components/result-card.js";
import { PageHeading } from "../page-heading.js";
import { useRouteCall } from "../use-route-call.js";

/**
 * `/` — one prompt, one reply: `POST /api/quickstart`, which calls the
 * service's completions-style endpoint with the official `openai` client.
 */
export function QuickstartPage() {
  const promptId = useId();
  const [prompt, setPrompt] = useState("");
  const [personaId, setPersonaId] = useState("");
  const { state, call } = useRouteCall<QuickstartResponse>("/api/quickstart");
  const pending = state.status === "pending";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (pending) return;
    call({ prompt, ...personaIdOf(personaId) });
  };

  return (
    <>
      <PageHeading>Quickstart</PageHeading>
      <p className="lead">
        One prompt, one reply in the persona's voice. This page posts to{" "}
        <code>/api/quickstart</code>; the app's server calls the service's completions-style
        endpoint with the official <code>openai</code> client and its key, which never reaches this
        page.
      </p>
      <form className="card" onSubmit={submit} aria-busy={pending}>
        <label htmlFor={promptId}>Prompt</label>
        <textarea
          id={promptId}
          name="prompt"
          rows={3}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
          placeholder="Hi! Which herbs grow well on a balcony?"
        />
        <PersonaIdField value={personaId} onChange={setPersonaId} />
        <button type="submit" aria-disabled={pending}>
          {pending ? "Waiting for the persona…" : "Get a reply"}
        </button>
      </form>
      <ResultSection
        state={state}
        title="Reply"
        chunksLabel="Reply chunks"
        textOf={(value) => value.text}
      />
    </>
  );
}
