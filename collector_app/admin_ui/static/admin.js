// Progressive behaviour of the administration pages; every page works without it.
"use strict";
(function () {
  // Copy buttons: shown only when the clipboard can be written.
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    if (!navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      navigator.clipboard.writeText(source.value).then(function () {
        button.setAttribute("aria-live", "polite");
        button.dataset.label = button.dataset.label || button.textContent;
        button.textContent = "✓ " + button.dataset.label;
      });
    });
  });
  // Forms that destroy something ask first.
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); }
    });
  });
  // A block that follows a job's progress is reloaded until the job is done.
  function follow(block) {
    var url = block.getAttribute("data-refresh");
    if (!url) { return; }
    window.setTimeout(function () {
      fetch(url, { credentials: "same-origin" }).then(function (response) {
        return response.ok ? response.text() : null;
      }).then(function (html) {
        if (html === null) { return; }
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var fresh = holder.firstElementChild;
        block.replaceWith(fresh);
        follow(fresh);
      });
    }, 3000);
  }
  document.querySelectorAll("[data-refresh]").forEach(follow);
})();
