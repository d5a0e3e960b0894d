import { type FormEvent, useId, useState } from "react";
import type { PersonifyResponse } from "../../server/route-types.js";
import { PersonaIdField, personaIdOf } from "../components/persona-id-field.js";
import { ResultSection } from "../components/result-card.js";
import { PageHeading } from "../page-heading.js";
import { useRouteCall } from "../use-route-call.js";

/**
 * `/personify` — source text in, the text rewritten in the persona's voice
 * and its chunks out: `POST /api/personify`, which calls the service's native
 * endpoint through the client library `@persona-reply/client`.
 */
export function PersonifyPage() {
  const rawId = useId();
  const [raw, setRaw] = useState("");
  const [personaId, setPersonaId] = useState("");
  const { state, call } = useRouteCall<PersonifyResponse>("/api/personify");
  const pending = state.status === "pending";

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (pending) return;
    call({ raw, ...personaIdOf(personaId) });
  };

  return (
    <>
      <PageHeading>Personify</PageHeading>
      <p className="lead">
        Paste text and get it back in the persona's voice. The text is rewritten, never obeyed. This
        page posts to <code>/api/personify</code>; the app's server calls the service with the
        client library.
      </p>
      <form className="card" onSubmit={submit} aria-busy={pending}>
        <label htmlFor={rawId}>Source text</label>
        <textarea
          id={rawId}
          name="raw"
          rows={5}
          value={raw}
          onChange={(event) => setRaw(event.target.value)}
          placeholder="The meeting moves to Thursday. Bring the seed catalogue."
        />
        <PersonaIdField value={personaId} onChange={setPersonaId} />
        <button type="submit" aria-disabled={pending}>
          {pending ? "Rewriting…" : "Rewrite in the persona's voice"}
        </button>
      </form>
      <ResultSection
        state={state}
        title="Rewritten text"
        chunksLabel="Rewritten chunks"
        textOf={(value) => value.personified}
      />
    </>
  );
}
