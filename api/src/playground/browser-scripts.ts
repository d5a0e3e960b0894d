// Scripts of the playground pages, served from /playground/assets/ so the
// pages' Content-Security-Policy can forbid inline script (script-src 'self').
// They are plain browser JavaScript kept as strings: the build has no bundler
// and they are small. They only ever write text with textContent.

/** `/playground/assets/keys.js`: the copy button beside a newly created key. */
export const KEYS_SCRIPT = `"use strict";
(() => {
  const button = document.getElementById("copy-key");
  const key = document.getElementById("new-key");
  const status = document.getElementById("copy-status");
  if (!button || !key || !status) return;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(key.textContent.trim());
      status.textContent = "Copied.";
    } catch {
      const range = document.createRange();
      range.selectNodeContents(key);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = "Selected: press Ctrl+C (or Cmd+C) to copy.";
    }
  });
})();
`;

/**
 * \`/playground/assets/chat.js\`: the chat. The history lives in the page and
 * is sent whole with every turn (the API is stateless, docs/API.md §1.3). Each
 * turn is a bubble in the list \`#chat-log\` (the user's on the right, the
 * persona's on the left), the persona's labelled with its name and the
 * version that answered. Under the picker, the version line of the picked
 * persona (its version and release note, rendered by the server).
 */
export const CHAT_SCRIPT = `"use strict";
(() => {
  const root = document.getElementById("chat");
  if (!root) return;
  const csrf = root.dataset.csrf;
  const persona = document.getElementById("persona");
  const log = document.getElementById("chat-log");
  const chatForm = document.getElementById("chat-form");
  const message = document.getElementById("message");
  const variations = document.getElementById("variations");
  const send = document.getElementById("send");
  const reset = document.getElementById("reset");
  const chatError = document.getElementById("chat-error");
  const personaVersion = document.getElementById("persona-version");
  const engineNotice = document.getElementById("engine-notice");
  const personifyForm = document.getElementById("personify-form");
  const raw = document.getElementById("raw");
  const personifySend = document.getElementById("personify-send");
  const personifyResult = document.getElementById("personify-result");
  const personifyUnavailable = document.getElementById("personify-unavailable");
  let history = [];

  async function call(path, body) {
    const response = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify(body),
    });
    const type = response.headers.get("content-type") || "";
    const data = type.includes("application/json")
      ? await response.json()
      : { error: { message: await response.text() } };
    if (!response.ok) throw new Error((data.error && data.error.message) || "HTTP " + response.status);
    return data;
  }

  function personaName() {
    return persona.selectedOptions[0].textContent;
  }

  /** The version line and the development notice, for the picked persona or its last answer. */
  function showPersona(answeredBy) {
    const option = persona.selectedOptions[0];
    const development = answeredBy ? answeredBy.development : option.dataset.development === "true";
    engineNotice.hidden = !development;
    // The release note is the live version's: an answer of another version names its number only.
    personaVersion.textContent =
      answeredBy && String(answeredBy.personaVersion) !== option.dataset.version
        ? "Version " + answeredBy.personaVersion
        : option.dataset.versionLine;
  }

  function addTurn(role, text, answeredBy, choices) {
    const turn = document.createElement("li");
    turn.className = "turn " + role;
    const who = document.createElement("span");
    who.className = "role";
    let label = role === "user" ? "You" : personaName();
    if (answeredBy && answeredBy.personaVersion !== undefined) label += " · version " + answeredBy.personaVersion;
    who.textContent = label;
    const bubble = document.createElement("div");
    bubble.className = "bubble text";
    bubble.textContent = text;
    turn.append(who, bubble);
    if (answeredBy && answeredBy.development) {
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = "Development engine";
      turn.append(meta);
    }
    if (choices && choices.length > 1) {
      const list = document.createElement("ol");
      list.className = "variations";
      list.setAttribute("aria-label", "Variations");
      for (const choice of choices) {
        const item = document.createElement("li");
        item.textContent = choice;
        list.append(item);
      }
      turn.append(list);
    }
    log.append(turn);
    turn.scrollIntoView({ block: "nearest" });
  }

  function startOver() {
    history = [];
    log.replaceChildren();
    chatError.textContent = "";
    const allowed = persona.selectedOptions[0].dataset.personify === "true";
    personifyUnavailable.hidden = allowed;
    raw.disabled = !allowed;
    personifySend.disabled = !allowed;
    personifyResult.textContent = "";
    showPersona(undefined);
  }

  persona.addEventListener("change", startOver);
  reset.addEventListener("click", startOver);

  chatForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = message.value.trim();
    if (text === "") return;
    chatError.textContent = "";
    const turn = { role: "user", content: text };
    const messages = history.concat([turn]);
    addTurn("user", text);
    message.value = "";
    send.disabled = true;
    try {
      const data = await call("/playground/api/generate", {
        personaId: persona.value,
        messages,
        includeVariations: variations.checked,
      });
      history = messages.concat([{ role: "assistant", content: data.result.finalReply }]);
      addTurn("assistant", data.result.finalReply, data.answeredBy, data.result.replyChoices);
      showPersona(data.answeredBy);
    } catch (error) {
      log.lastChild && log.lastChild.remove();
      message.value = text;
      chatError.textContent = error.message;
    } finally {
      send.disabled = false;
    }
  });

  personifyForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = raw.value.trim();
    if (text === "") return;
    personifySend.disabled = true;
    personifyResult.textContent = "";
    try {
      const data = await call("/playground/api/personify", { personaId: persona.value, raw: text });
      personifyResult.textContent = data.personified;
    } catch (error) {
      personifyResult.textContent = "Error: " + error.message;
    } finally {
      personifySend.disabled = raw.disabled;
    }
  });

  startOver();
})();
`;
