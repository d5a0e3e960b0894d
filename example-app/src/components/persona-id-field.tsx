import { useEffect, useId, useState } from "react";

/** Props of {@link PersonaIdField}. */
export interface PersonaIdFieldProps {
  value: string;
  onChange: (value: string) => void;
}

/**
 * The optional `personaId` of a request (docs/API.md §4.6), folded away: empty
 * means the server's `SERVICE_PERSONA_ID`. The section opens and closes
 * only when the person toggles it (or a value arrives while it is closed),
 * never while its field is being edited — clearing the field keeps it open.
 */
export function PersonaIdField({ value, onChange }: PersonaIdFieldProps) {
  const id = useId();
  const [open, setOpen] = useState(value !== "");
  const hasValue = value !== "";
  useEffect(() => {
    if (hasValue) setOpen(true);
  }, [hasValue]);
  return (
    <details
      className="persona-field"
      open={open}
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>Use another persona (optional)</summary>
      <label htmlFor={id}>Persona ID</label>
      <input
        id={id}
        name="personaId"
        type="text"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        autoComplete="off"
        spellCheck={false}
        placeholder="xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
        aria-describedby={`${id}-hint`}
      />
      <p id={`${id}-hint`} className="hint">
        A persona UUID of your account. Empty: the server's SERVICE_PERSONA_ID.
      </p>
    </details>
  );
}

/** The `personaId` to send: the trimmed field, or nothing when it is empty. */
export function personaIdOf(value: string): { personaId?: string } {
  const trimmed = value.trim();
  return trimmed === "" ? {} : { personaId: trimmed };
}
