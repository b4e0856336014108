/**
 * Everything lives in the shadow root: page CSS can't reach in (`:host { all: initial }` also
 * stops inherited properties such as font and colour) and nothing here reaches out.
 * `--a` is the accent colour, `--at` the text colour drawn on it.
 */
export const CSS = `
:host{all:initial!important;display:block!important;position:static!important}
*{box-sizing:border-box;margin:0;padding:0;font:inherit;color:inherit}
[hidden]{display:none!important}
.w{--a:#2563eb;--at:#fff;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2937;-webkit-text-size-adjust:100%}
button{cursor:pointer;border:0;background:none}
button:focus-visible,textarea:focus-visible{outline:3px solid var(--a);outline-offset:2px}
.bubble{position:fixed;right:20px;bottom:20px;z-index:2147483000;width:56px;height:56px;border-radius:50%;background:var(--a);color:var(--at);display:flex;align-items:center;justify-content:center;box-shadow:0 4px 14px rgba(0,0,0,.25)}
.bubble:focus-visible{outline-color:#111;box-shadow:0 0 0 6px #fff,0 4px 14px rgba(0,0,0,.25)}
.bubble svg{width:28px;height:28px;fill:currentColor}
.badge{position:absolute;top:-2px;right:-2px;min-width:20px;height:20px;padding:0 6px;border-radius:10px;background:#dc2626;color:#fff;font-size:12px;font-weight:600;line-height:20px;text-align:center}
.panel{position:fixed;right:20px;bottom:20px;z-index:2147483001;width:370px;height:min(600px,calc(100vh - 40px));display:flex;flex-direction:column;background:#fff;border-radius:14px;box-shadow:0 10px 40px rgba(0,0,0,.25);overflow:hidden}
.head{display:flex;align-items:center;gap:8px;padding:12px 12px 12px 16px;background:var(--a);color:var(--at)}
.head h2{flex:1;font-size:16px;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.close{width:36px;height:36px;border-radius:8px;font-size:24px;line-height:1;color:var(--at)}
.close:hover{background:rgba(127,127,127,.25)}
.head button:focus-visible{outline-color:var(--at);outline-offset:-3px}
.status,.err{padding:6px 16px;font-size:13px;background:#fef3c7;color:#78350f}
.err{background:#fee2e2;color:#7f1d1d}
.log{flex:1;overflow-y:auto;padding:14px 12px;display:flex;flex-direction:column;gap:8px;background:#f9fafb;overscroll-behavior:contain}
.log:focus-visible{outline:3px solid var(--a);outline-offset:-3px}
.m{max-width:82%;display:flex;flex-direction:column;align-items:flex-start}
.t{padding:8px 12px;border-radius:14px;white-space:pre-wrap;overflow-wrap:anywhere;background:#e5e7eb;color:#111827}
.m-customer{align-self:flex-end;align-items:flex-end}
.m-customer .t{background:var(--a);color:var(--at)}
.m-operator .t{background:#ede9fe}
.m-system{align-self:center;max-width:92%}
.m-system .t{background:none;color:#6b7280;font-size:12px;text-align:center;padding:2px}
.meta{font-size:11px;color:#6b7280;padding:2px 4px}
.m[data-state=sending] .t{opacity:.7}
.m[data-state=failed] .t{background:#fecaca;color:#7f1d1d}
.retry{font-size:11px;text-decoration:underline;color:#b91c1c;padding:2px 4px}
.typing{padding:4px 16px 6px;font-size:12px;color:#6b7280;font-style:italic;background:#f9fafb}
.f{display:flex;align-items:flex-end;gap:8px;padding:10px;border-top:1px solid #e5e7eb;background:#fff}
textarea{flex:1;resize:none;min-height:40px;max-height:120px;padding:9px 12px;border:1px solid #d1d5db;border-radius:10px;background:#fff;color:#111827;font-size:15px;line-height:1.4}
textarea::placeholder{color:#6b7280}
.send{height:40px;padding:0 16px;border-radius:10px;background:var(--a);color:var(--at);font-weight:600}
.send:disabled{opacity:.5;cursor:default}
.csat{align-self:stretch;display:flex;flex-direction:column;gap:8px;padding:10px 12px;border:1px solid #e5e7eb;border-radius:12px;background:#fff}
.csat-q{font-weight:600}
.csat-r{display:flex;gap:6px}
.csat-r button{flex:1;height:36px;border-radius:8px;border:1px solid #d1d5db;background:#fff;font-weight:600}
.csat-r button[aria-pressed=true]{background:var(--a);color:var(--at);border-color:var(--a)}
.csat textarea{min-height:36px;font-size:14px}
.csat .send{align-self:flex-end}
.csat-done{color:#065f46}
.pre{align-self:stretch;display:flex;flex-direction:column;gap:8px;padding:10px 12px;border:1px solid #e5e7eb;border-radius:12px;background:#fff}
.pre-q{font-weight:600}
.pre label{display:flex;flex-direction:column;gap:2px;font-size:13px;color:#374151}
.pre input{height:38px;padding:0 10px;border:1px solid #d1d5db;border-radius:8px;background:#fff;color:#111827;font-size:15px}
.pre input:focus-visible{outline:3px solid var(--a);outline-offset:1px}
.pre-err{font-size:13px;color:#b91c1c}
.pre-b{display:flex;justify-content:flex-end;gap:8px}
.pre-skip{height:40px;padding:0 12px;border-radius:10px;color:#374151;text-decoration:underline}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:480px){
.panel{inset:0;width:100%;height:100%;border-radius:0}
textarea,.pre input{font-size:16px}
}
`;
