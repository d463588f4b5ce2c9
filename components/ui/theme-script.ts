// Shared by the layout (a server component, which cannot read plain values out of a "use client" module)
// and the theme choice in the user menu.

export const THEME_STORAGE_KEY = "vigil.theme";

/** Runs before the first paint (an inline script in the layout), so a chosen theme shows without a flash of the other. */
export const applyStoredThemeScript = `try{var t=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}`;
