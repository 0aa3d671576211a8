// The invite link's copy button (templates/games/_invite.html).
const input = document.getElementById("invite-url");
const button = document.getElementById("invite-copy");

async function copy() {
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select(); // no clipboard here (not a secure context): select it for the keyboard
    document.execCommand("copy");
  }
  const label = button.textContent;
  button.textContent = button.dataset.copied;
  setTimeout(() => { button.textContent = label; }, 1500);
}

if (input && button) {
  button.addEventListener("click", copy);
  input.addEventListener("focus", () => input.select());
}
