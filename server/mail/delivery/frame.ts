/** Hearth's HTML frame for Core's notifications: a plain, mail-client-safe layout around the message. */
import { escapeHtml as esc } from '../../core/http/html.ts';

export function notificationFrame(appName: string, subject: string, text: string, html: string | null): string {
  const body =
    html ??
    text
      .split(/\n{2,}/)
      .map((p) => `<p style="margin:0 0 14px">${esc(p).replace(/\n/g, '<br>')}</p>`)
      .join('');
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${esc(subject)}</title></head>` +
    `<body style="margin:0;padding:24px;background:#f3f4f6;font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#111827">` +
    `<table role="presentation" width="100%" cellspacing="0" cellpadding="0"><tr><td align="center">` +
    `<table role="presentation" width="560" cellspacing="0" cellpadding="0" style="max-width:560px;background:#ffffff;border:1px solid #e5e7eb;border-radius:10px">` +
    `<tr><td style="padding:16px 24px;border-bottom:1px solid #e5e7eb;font-weight:600">${esc(appName)}</td></tr>` +
    `<tr><td style="padding:20px 24px;font-size:15px;line-height:1.5" data-hearth-notification-body>${body}</td></tr>` +
    `<tr><td style="padding:12px 24px;border-top:1px solid #e5e7eb;color:#6b7280;font-size:12px">This is an automatic message from ${esc(appName)}.</td></tr>` +
    `</table></td></tr></table></body></html>`
  );
}
