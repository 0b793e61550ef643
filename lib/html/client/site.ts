/*
 * Every page (site.js): copy buttons (shown only where script runs) and the page-size selector that applies on
 * change. Without it the pages work the same, with a button to apply the page size.
 */

document.documentElement.className += " js";

for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
  if (!navigator.clipboard) break;
  button.hidden = false;
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(button.getAttribute("data-copy") ?? "").then(
      () => {
        button.textContent = "Copied";
        setTimeout(() => {
          button.textContent = "Copy";
        }, 1500);
      },
      () => {},
    );
  });
}

for (const select of document.querySelectorAll<HTMLSelectElement>("form.page-size select")) {
  select.addEventListener("change", () => select.form?.submit());
}
