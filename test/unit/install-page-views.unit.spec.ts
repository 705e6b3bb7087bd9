import { escapeHtml, html, Html } from '../../src/oauth/install-page/views/html';
import { renderAccountChooserPage } from '../../src/oauth/install-page/views/account-chooser.view';
import { renderConsentPage } from '../../src/oauth/install-page/views/consent.view';
import { renderErrorPage } from '../../src/oauth/install-page/views/error.view';
import { renderSignInPage } from '../../src/oauth/install-page/views/sign-in.view';

const EVIL = `<script>alert(1)</script>"'&`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;';

describe('install page: HTML rendering', () => {
  it('escapes text and both kinds of quotes', () => {
    expect(escapeHtml(EVIL)).toBe(ESCAPED);
    expect(html`<p title="${EVIL}">${EVIL}</p>`.value).toBe(`<p title="${ESCAPED}">${ESCAPED}</p>`);
    expect(html`${new Html('<b>kept</b>')}${[new Html('<i>a</i>'), new Html('<i>b</i>')]}${undefined}${7}`.value).toBe(
      '<b>kept</b><i>a</i><i>b</i>7',
    );
  });

  it('never lets a dynamic value out as markup, on any page', () => {
    const pages = [
      renderErrorPage({ title: EVIL, message: EVIL, correlationId: EVIL }),
      renderSignInPage({ appName: EVIL, csrfToken: EVIL, request: EVIL, email: EVIL, error: EVIL, portalId: 5 }),
      renderAccountChooserPage({
        appName: EVIL,
        email: EVIL,
        accounts: [{ hubId: 1, domain: EVIL, tier: EVIL }],
        csrfToken: EVIL,
        request: EVIL,
        notice: EVIL,
      }),
      renderConsentPage({
        appName: EVIL,
        email: EVIL,
        account: { hubId: 1, domain: EVIL, tier: EVIL },
        requiredScopes: [EVIL],
        optionalScopes: [EVIL],
        unavailableScopes: [EVIL],
        redirectOrigin: EVIL,
        csrfToken: EVIL,
        request: EVIL,
        chooseAnotherHref: EVIL,
      }),
    ];
    for (const p of pages) {
      expect(p).not.toContain('<script>');
      expect(p).not.toMatch(/<script/i);
      expect(p).toContain(ESCAPED);
      expect(p.startsWith('<!doctype html>')).toBe(true);
      expect(p).toContain('<html lang="en">');
    }
  });

  it('labels every input and groups choices in fieldsets with legends', () => {
    const signIn = renderSignInPage({ appName: 'A', csrfToken: 't', request: 'r' });
    expect(signIn).toMatch(/<label for="email">[^<]+<\/label>\s*<input\s+type="email"\s+id="email"/);
    expect(signIn).toMatch(/<label for="password">[^<]+<\/label>\s*<input\s+type="password"\s+id="password"/);
    expect(signIn).toContain('name="_csrf" value="t"');
    expect(signIn).not.toContain('name="portal_id"');

    const chooser = renderAccountChooserPage({
      appName: 'A',
      email: 'e@x',
      accounts: [
        { hubId: 1, domain: 'one.example', tier: 'free' },
        { hubId: 2, domain: 'two.example', tier: 'enterprise' },
      ],
      csrfToken: 't',
      request: 'r',
    });
    expect(chooser).toMatch(/<fieldset>\s*<legend>/);
    // Each radio has its own label, tied by for/id.
    for (const id of [1, 2])
      expect(chooser).toMatch(
        new RegExp(
          `<input\\s+type="radio"\\s+id="hub-${id}"\\s+name="hub_id"\\s+value="${id}"[^>]*>\\s*<label for="hub-${id}"`,
        ),
      );
    expect(chooser.match(/ checked/g)).toHaveLength(1);
    // Two forms (choose, sign out), each with its CSRF token.
    expect(chooser.match(/<form method="post"/g)).toHaveLength(2);
    expect(chooser.match(/name="_csrf"/g)).toHaveLength(2);
  });

  it('shows required and optional scopes and names the dropped ones on the consent page', () => {
    const p = renderConsentPage({
      appName: 'A',
      email: 'e@x',
      account: { hubId: 9, domain: 'acme.example', tier: 'professional' },
      requiredScopes: ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.sensitive.read.v2'],
      optionalScopes: ['crm.lists.read'],
      unavailableScopes: ['crm.schemas.custom.read'],
      redirectOrigin: 'https://app.example',
      csrfToken: 't',
      request: 'r',
      chooseAnotherHref: '/oauth/authorize?client_id=c',
    });
    // Grouped as HubSpot's scopes reference groups them, each scope in words with its name beside it.
    const required = /<legend>Required permissions<\/legend>([\s\S]*?)<\/fieldset>/.exec(p)![1]!;
    expect([...required.matchAll(/<h2 class="scope-group">([^<]*)<\/h2>/g)].map((m) => m[1])).toEqual([
      'Basic',
      'CRM',
      'CRM sensitive data',
    ]);
    expect(required).toContain('<li>See contacts and their properties <code>crm.objects.contacts.read</code></li>');
    expect(required).toMatch(
      /<li>See the sensitive data stored on contacts <code>crm.objects.contacts.sensitive.read.v2<\/code>/,
    );
    expect(p).toMatch(
      /<legend>Optional permissions<\/legend>[\s\S]*<li>See lists of records <code>crm.lists.read<\/code>/,
    );
    expect(p).toMatch(
      /id="unavailable-scopes">\s*Not available on the professional tier[^<]*See the definitions of custom objects \(<code>crm.schemas.custom.read<\/code>\)/,
    );
    expect(p).toContain('name="hub_id" value="9"');
    expect(p).toContain('<button type="submit" name="decision" value="approve"');
    expect(p).toContain('<button type="submit" name="decision" value="deny"');
  });
});
