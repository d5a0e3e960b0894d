import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { navigate } from "./router.js";

/**
 * A link to a page of this app: a real `<a href>` (so it works with the
 * keyboard, middle-click and without JavaScript), navigating in place on a
 * plain click.
 */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const { href, onClick, ...rest } = props;
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    const modified = event.metaKey || event.ctrlKey || event.shiftKey || event.altKey;
    if (event.defaultPrevented || event.button !== 0 || modified) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
