/**
 * Text as errors, logs and stdout may show it: the password of any URL with credentials
 * (`postgres://app:S3cretPw@db/fuel`, `rediss://:pw@cache`, `mysql://…` alike) replaced by `***`,
 * and the values of password-like query parameters too (`?password=`, `?sslpassword=`). Works on
 * whole messages, not only on a URL alone, and on text that is not a valid URL at all.
 */
// The password runs to the last @ before the path, as URL parsers read it (an unencoded @ in it too).
const USERINFO_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"]*:)[^\s/?#'"]*@/gi;
const PASSWORD_PARAMETER = /([?&;](?:[a-z_]*pass(?:word|wd)?|secret|api[_-]?key|access[_-]?token))=[^&\s#'"]*/gi;

export function maskSecrets(text: string): string {
  return text.replace(USERINFO_PASSWORD, '$1***@').replace(PASSWORD_PARAMETER, '$1=***');
}
