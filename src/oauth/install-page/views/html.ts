/**
 * Server-rendered HTML for the install page: no templates engine, no front-end build, no script.
 * Every dynamic value goes through `escapeHtml` (text and attribute values alike: both quotes are
 * escaped), so an app named `<script>…</script>` shows as text.
 */
export function escapeHtml(value: string | number): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A string already escaped (or static markup), so fragments compose without double escaping. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Tagged template: interpolated strings and numbers are escaped, `Html` fragments and arrays of them are not. */
export function html(
  strings: TemplateStringsArray,
  ...values: Array<Html | string | number | undefined | null | Html[]>
): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    if (v instanceof Html) out += v.value;
    else if (Array.isArray(v)) out += v.map((h) => h.value).join('');
    else if (v !== undefined && v !== null) out += escapeHtml(v);
    out += strings[i + 1]!;
  });
  return new Html(out);
}

/** The install page's stylesheet (the console shows the same look). */
export const INSTALL_PAGE_STYLE = `
:root{color-scheme:light;--ink:#213343;--muted:#516f90;--line:#cbd6e2;--accent:#c93b16;--accent-ink:#fff;--focus:#0b6bcb;--bad:#b3261e}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:#f5f8fa}
main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border:1px solid var(--line);border-radius:8px}
h1{font-size:1.5rem;margin:0 0 1rem}
p{margin:.5rem 0 1rem}
.muted{color:var(--muted);font-size:.9rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input[type=email],input[type=password]{width:100%;padding:.6rem;border:1px solid var(--line);border-radius:4px;font:inherit}
fieldset{border:1px solid var(--line);border-radius:6px;margin:1rem 0;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;gap:.5rem;align-items:baseline;margin:.4rem 0}
.choice label{font-weight:400;margin:0}
ul.scopes{margin:.25rem 0;padding-left:1.25rem}
h2.scope-group{font-size:.95rem;margin:.5rem 0 0}
ul.scopes code{color:var(--muted)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;overflow-wrap:anywhere}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.5rem}
button{font:inherit;font-weight:600;padding:.6rem 1.2rem;border-radius:4px;border:1px solid var(--ink);background:#fff;color:var(--ink);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-ink)}
button.link{border:none;background:none;padding:0;color:var(--focus);text-decoration:underline;font-weight:400}
a{color:var(--focus)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.alert{border-left:4px solid var(--bad);background:#fdecea;padding:.5rem .75rem;margin:0 0 1rem}
.signed-in{margin-top:1.25rem}
.notice{border-left:4px solid var(--focus);background:#eaf3fc;padding:.5rem .75rem;margin:0 0 1rem}
`;

export function page(title: string, body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <style>
          ${new Html(INSTALL_PAGE_STYLE)}
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.value;
}

/** Hidden fields every POST of the flow carries: the CSRF token and the pending authorization request. */
export function hiddenFields(fields: Record<string, string | number | undefined>): Html {
  return new Html(
    Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`.value)
      .join('\n'),
  );
}
