// Entry point: registers the elements; <pd-app> in index.html does the rest.
import './components/pd-app.ts';
