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
  // "Add a rule": a copy of the table's last row, emptied and numbered next (without the script,
  // the page always offers blank rows).
  document.querySelectorAll("[data-add-row]").forEach(function (button) {
    var body = document.getElementById(button.getAttribute("data-add-row"));
    button.hidden = false;
    button.addEventListener("click", function () {
      var last = body.rows[body.rows.length - 1];
      var row = last.cloneNode(true);
      var index = body.rows.length;
      row.querySelectorAll("input, select").forEach(function (field) {
        field.id = field.id.replace(/\d+$/, String(index));
        if (field.name === "position") { field.value = String(index + 1); }
        else if (field.tagName === "SELECT") { field.selectedIndex = 0; }
        else { field.value = ""; }
      });
      row.querySelectorAll("label").forEach(function (label) {
        label.htmlFor = label.htmlFor.replace(/\d+$/, String(index));
        label.textContent = label.textContent.replace(/\d+(?!.*\d)/, String(index + 1));
      });
      body.appendChild(row);
      row.querySelector("input[name=channel]").focus();
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
