// Entry point of the page: mounts the Svelte app. Everything heavy runs in workers (see src/ui/workers.ts).
import { mount } from 'svelte';
import { serviceWorker } from '../sw/register.svelte.ts';
import App from './App.svelte';
import './app.css';

const target = document.getElementById('app');
if (!target) throw new Error('ui: #app element missing from index.html');

export default mount(App, { target });

// After one visit the app shell, the model and the runtimes are cached, so the app loads and answers offline.
serviceWorker.register();
